#include "sim/routing/announced_blocks.h"

#include <type_traits>

namespace llm {

void AnnouncedBlocks::apply(const KvEvent& event) {
  std::visit(
      [this](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, KvBlockStored>) {
          for (uint64_t h : e.block_hashes) ++copies_[h];
        } else if constexpr (std::is_same_v<E, KvBlockRemoved>) {
          for (uint64_t h : e.block_hashes) {
            auto it = copies_.find(h);
            if (it != copies_.end() && --it->second == 0) copies_.erase(it);
          }
        } else {
          copies_.clear();
        }
      },
      event);
}

int64_t AnnouncedBlocks::matched_blocks(Request& request) const {
  if (copies_.empty()) return 0;
  const int64_t blocks = request.num_tokens() / kv_.block_size();
  int64_t matched = 0;
  while (matched < blocks && holds(kv_.block_hash(request, matched))) ++matched;
  return matched;
}

}  // namespace llm
