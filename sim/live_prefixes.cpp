#include "sim/live_prefixes.h"

namespace llm {

int64_t LivePrefixes::matched_blocks(Request& request) const {
  if (!kv_.prefix_caching()) return 0;
  // Memoize the request's block hashes once; every engine hashes blocks the same way.
  const int64_t lookup_blocks = (request.num_tokens() - 1) / kv_.block_size();
  if (lookup_blocks > 0) kv_.block_hash(request, lookup_blocks - 1);
  return kv_.peek_cached_prefix(request, hits_) / kv_.block_size();
}

}  // namespace llm
