#include "core/kv_cache_manager.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/rng.h"

namespace llm {
namespace {

constexpr uint64_t kRootHash = 0x6c6c6d7365727665ULL;  // parent hash of a request's first block
constexpr uint64_t kTokenDomain = 1;
constexpr uint64_t kHashIdDomain = 2;
constexpr uint64_t kSaltDomain = 3;
constexpr uint64_t kLoraDomain = 4;
constexpr uint64_t kCacheSaltDomain = 5;

// FNV-1a over the bytes, in its own domain: a key for a string extra key.
uint64_t string_key(uint64_t domain, const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return hash_combine(domain, h);
}

}  // namespace

KvCacheManager::KvCacheManager(int32_t num_blocks, int32_t block_size, bool enable_prefix_caching)
    : pool_(num_blocks), block_size_(block_size), caching_(enable_prefix_caching) {
  if (block_size <= 0) throw std::invalid_argument("block_size must be positive");
}

void KvCacheManager::enable_residency_metrics(double sample_rate) {
  if (residency_) return;
  residency_ = std::make_unique<KvBlockResidency>(pool_.num_blocks(), sample_rate);
  // vLLM calls on_block_evicted only with prefix caching on: without it nothing is observed.
  if (caching_) pool_.set_residency(residency_.get());
}

KvResidencyObservations KvCacheManager::take_residency() {
  return residency_ ? residency_->take() : KvResidencyObservations{};
}

uint64_t KvCacheManager::content_key(const Request& r, int64_t index) const {
  const int64_t begin = index * block_size_;
  const int64_t end = begin + block_size_;
  const bool in_prompt = end <= r.prompt_len;
  const bool have_tokens =
      in_prompt ? !r.prompt_tokens.empty() : !r.prompt_tokens.empty() && r.keep_output_tokens;
  if (have_tokens) {
    uint64_t key = kTokenDomain;
    for (int64_t t = begin; t < end; ++t) {
      int32_t token = t < r.prompt_len ? r.prompt_tokens[t] : r.output_tokens[t - r.prompt_len];
      key = hash_combine(key, static_cast<uint32_t>(token));
    }
    return key;
  }
  if (in_prompt && r.hash_block_size > 0) {
    const int64_t first = begin / r.hash_block_size;
    const int64_t last = (end - 1) / r.hash_block_size;
    if (last < static_cast<int64_t>(r.prefix_hash_ids.size())) {
      uint64_t key = hash_combine(kHashIdDomain, static_cast<uint64_t>(begin % r.hash_block_size));
      for (int64_t h = first; h <= last; ++h) key = hash_combine(key, r.prefix_hash_ids[h]);
      return key;
    }
  }
  // Content nobody else is known to share: the prompt's salt (shared by the n children of one
  // request) for prompt blocks, the sequence's own id for blocks holding its outputs.
  const uint64_t salt = in_prompt ? r.prompt_salt : hash_combine(r.prompt_salt, r.id + 1);
  return hash_combine(hash_combine(kSaltDomain, salt), static_cast<uint64_t>(index));
}

uint64_t KvCacheManager::block_hash(Request& r, int64_t index) const {
  while (static_cast<int64_t>(r.block_hashes.size()) <= index) {
    const int64_t i = static_cast<int64_t>(r.block_hashes.size());
    if ((i + 1) * block_size_ > r.num_tokens()) throw std::logic_error("hashing a partial block");
    r.block_hashes.push_back(chain(i == 0 ? kRootHash : r.block_hashes[i - 1], r, i));
  }
  return r.block_hashes[index];
}

uint64_t KvCacheManager::chain(uint64_t parent, const Request& r, int64_t index) const {
  uint64_t hash = hash_combine(parent, content_key(r, index));
  // vLLM's extra keys, only when present (so that other requests hash as they always did).
  if (!r.lora_name.empty()) hash = hash_combine(hash, string_key(kLoraDomain, r.lora_name));
  if (index == 0 && !r.cache_salt.empty()) {
    hash = hash_combine(hash, string_key(kCacheSaltDomain, r.cache_salt));
  }
  return hash;
}

template <typename HashOf>
int64_t KvCacheManager::walk_cached_prefix(const Request& r, HashOf&& hash_of,
                                           std::vector<int32_t>& hit_blocks) const {
  hit_blocks.clear();
  // vLLM: a request that asks for prompt logprobs reads no cached blocks (it needs the logits of
  // every prompt position).
  if (!caching_ || r.num_computed_tokens != 0 || r.params.prompt_logprobs >= 0) return 0;
  const int64_t max_blocks = (r.num_tokens() - 1) / block_size_;
  for (int64_t i = 0; i < max_blocks; ++i) {
    const int32_t block = pool_.lookup(hash_of(i));
    if (block == BlockPool::kNone) break;
    hit_blocks.push_back(block);
  }
  return static_cast<int64_t>(hit_blocks.size()) * block_size_;
}

int64_t KvCacheManager::peek_cached_prefix(const Request& r,
                                           std::vector<int32_t>& hit_blocks) const {
  uint64_t hash = kRootHash;
  const auto hash_of = [&](int64_t i) {
    hash = i < static_cast<int64_t>(r.block_hashes.size()) ? r.block_hashes[i] : chain(hash, r, i);
    return hash;
  };
  return walk_cached_prefix(r, hash_of, hit_blocks);
}

int64_t KvCacheManager::find_cached_prefix(Request& r, std::vector<int32_t>& hit_blocks) {
  return walk_cached_prefix(
      r, [&](int64_t i) { return block_hash(r, i); }, hit_blocks);
}

int64_t KvCacheManager::count_unreferenced(std::span<const int32_t> hit_blocks) const {
  int64_t n = 0;
  for (int32_t b : hit_blocks) n += pool_.ref_count(b) == 0 ? 1 : 0;
  return n;
}

bool KvCacheManager::can_admit(const Request& r, std::span<const int32_t> hit_blocks) const {
  const int64_t needed = blocks_for(r.num_tokens()) - static_cast<int64_t>(r.block_ids.size()) -
                         static_cast<int64_t>(hit_blocks.size()) + count_unreferenced(hit_blocks);
  return needed <= pool_.num_free();
}

bool KvCacheManager::allocate_slots(Request& r, int64_t num_new_tokens,
                                    std::span<const int32_t> hit_blocks) {
  const int64_t hit_tokens = static_cast<int64_t>(hit_blocks.size()) * block_size_;
  const int64_t end_token = r.num_computed_tokens + hit_tokens + num_new_tokens;
  const int64_t held = static_cast<int64_t>(r.block_ids.size() + hit_blocks.size());
  const int64_t new_blocks = std::max<int64_t>(blocks_for(end_token) - held, 0);
  if (new_blocks + count_unreferenced(hit_blocks) > pool_.num_free()) return false;

  pool_.take(hit_blocks);
  r.block_ids.insert(r.block_ids.end(), hit_blocks.begin(), hit_blocks.end());
  r.num_hashed_blocks_cached += static_cast<int64_t>(hit_blocks.size());
  const int64_t first = r.num_hashed_blocks_cached;
  const int64_t full = std::min(end_token, r.num_tokens()) / block_size_;
  if (caching_) {
    // The hashes of the blocks that become full, first, so that their table lines load while
    // the pool allocates (the same values cache() gets below: block_hash memoizes them).
    const auto held_now = static_cast<int64_t>(r.block_ids.size());
    for (int64_t i = first; i < full; ++i) {
      pool_.prefetch_hash(block_hash(r, i), i < held_now ? r.block_ids[i] : BlockPool::kNone);
    }
  }
  pool_.allocate(static_cast<int32_t>(new_blocks), r.block_ids);

  if (caching_) {
    for (int64_t i = first; i < full; ++i) pool_.cache(r.block_ids[i], block_hash(r, i));
    if (events_ && full > first) events_->push_back(stored_event(r, first, full));
    r.num_hashed_blocks_cached = std::max(r.num_hashed_blocks_cached, full);
  }
  return true;
}

KvBlockStored KvCacheManager::stored_event(const Request& r, int64_t first, int64_t end) const {
  KvBlockStored e;
  e.block_hashes.assign(r.block_hashes.begin() + first, r.block_hashes.begin() + end);
  if (first > 0) e.parent_block_hash = r.block_hashes[first - 1];
  e.block_size = block_size_;
  e.token_ids.reserve(static_cast<size_t>((end - first) * block_size_));
  const auto num_outputs = static_cast<int64_t>(r.output_tokens.size());
  for (int64_t t = first * block_size_; t < end * block_size_; ++t) {
    const int64_t out = t - r.prompt_len;
    if (out < 0 && !r.prompt_tokens.empty()) {
      e.token_ids.push_back(r.prompt_tokens[t]);
    } else if (out >= 0 && out < num_outputs) {
      e.token_ids.push_back(r.output_tokens[out]);
    } else {
      const uint64_t hash = r.block_hashes[t / block_size_];
      e.token_ids.push_back(synthesized_token_id(hash, static_cast<int32_t>(t % block_size_)));
    }
  }
  return e;
}

void KvCacheManager::enable_kv_events() {
  if (events_) return;
  events_ = std::make_unique<std::vector<KvEvent>>();
  pool_.set_event_sink(events_.get());
}

std::vector<KvEvent> KvCacheManager::take_kv_events() {
  std::vector<KvEvent> taken;
  if (events_) taken.swap(*events_);
  return taken;
}

void KvCacheManager::release(Request& r) {
  pool_.release(r.block_ids);
  r.block_ids.clear();
  r.num_hashed_blocks_cached = 0;
}

void KvCacheManager::record_lookup(int64_t prompt_tokens, int64_t hit_tokens) {
  counters_.queries += prompt_tokens;
  counters_.hits += hit_tokens;
}

}  // namespace llm
