#include "core/parked_requests.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace llm {
namespace {

// A field added to Request must be added to the record (or to parkable's checks): this fails to
// compile until someone looks. (x86-64 with libstdc++.)
static_assert(sizeof(void*) != 8 || sizeof(Request) == 664,
              "Request changed: update ParkedRequests' record (core/parked_requests.cpp)");

// Presence bits, one per field that may differ from a default Request.
enum Field : int {
  kExternalId,
  kParentIdSame,  // parent_id == external_id (n == 1 and every fan_out parent)
  kParentId,
  kChildIndex,
  kPromptLen,
  kPromptTokens,
  kPrefixHashIds,
  kHashBlockSize,
  kPromptSalt,
  kCacheSalt,
  kLoraName,
  kMinTokens,
  kMinP,
  kRepetitionPenalty,
  kFrequencyPenalty,
  kPresencePenalty,
  kLogitBias,
  kAllowedTokenIds,
  kMaxTokens,
  kN,
  kStopTokenIds,
  kIgnoreEos,
  kSeed,
  kTemperature,
  kTopP,
  kTopK,
  kLogprobs,
  kPromptLogprobs,
  kPriority,
  kScriptedOutputLen,
  kKeepOutputTokens,
  kArrival,
  kQueued,
};

uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t u) { return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1); }

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }
  void signed_varint(int64_t v) { varint(zigzag(v)); }
  template <typename T>
  void raw(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    uint8_t bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out_.insert(out_.end(), bytes, bytes + sizeof(T));
  }
  void text(const std::string& s) {
    varint(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }
  template <typename T>
  void ints(const std::vector<T>& v) {
    varint(v.size());
    for (T x : v) {
      if constexpr (std::is_signed_v<T>) {
        signed_varint(x);
      } else {
        varint(x);
      }
    }
  }

 private:
  std::vector<uint8_t>& out_;
};

class Reader {
 public:
  Reader(const std::vector<uint8_t>& in, size_t at) : in_(in), at_(at) {}
  size_t at() const { return at_; }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = in_[at_++];
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }
  int64_t signed_varint() { return unzigzag(varint()); }
  template <typename T>
  T raw() {
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::string text() {
    const size_t n = varint();
    std::string s(reinterpret_cast<const char*>(in_.data() + at_), n);
    at_ += n;
    return s;
  }
  template <typename T>
  void ints(std::vector<T>& v) {
    v.resize(varint());
    for (T& x : v) {
      if constexpr (std::is_signed_v<T>) {
        x = static_cast<T>(signed_varint());
      } else {
        x = static_cast<T>(varint());
      }
    }
  }

 private:
  const std::vector<uint8_t>& in_;
  size_t at_;
};

// Bit-exact double comparison: a record keeps -0.0 and NaN payloads as they were.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

}  // namespace

bool ParkedRequests::parkable(const Request& r) {
  static const Request fresh;
  const Timeline& t = r.timeline;
  return r.state == fresh.state && r.finish_reason == fresh.finish_reason &&
         r.stop_token == fresh.stop_token && r.num_computed_tokens == fresh.num_computed_tokens &&
         r.num_output_tokens == fresh.num_output_tokens &&
         r.last_output_token == fresh.last_output_token && r.output_digest == fresh.output_digest &&
         r.output_tokens.empty() && r.num_cached_tokens == fresh.num_cached_tokens &&
         r.num_preemptions_reported == fresh.num_preemptions_reported &&
         r.holds_seat == fresh.holds_seat && r.sample_key_set == fresh.sample_key_set &&
         r.block_ids.empty() && r.block_hashes.empty() &&
         r.num_hashed_blocks_cached == fresh.num_hashed_blocks_cached &&
         r.prompt_logprobs.empty() && !r.last_logprobs.has_value() &&
         t.scheduled == fresh.timeline.scheduled && t.first_token == fresh.timeline.first_token &&
         t.last_token == fresh.timeline.last_token && t.finished == fresh.timeline.finished &&
         t.num_preemptions == fresh.timeline.num_preemptions;
}

void ParkedRequests::push(const Request& r) {
  static const Request d;
  const SamplingParams& p = r.params;
  const SamplingParams& dp = d.params;
  uint64_t mask = 0;
  auto set = [&mask](Field f, bool differs) {
    if (differs) mask |= uint64_t{1} << f;
  };
  set(kExternalId, r.external_id != d.external_id);
  const bool parent_same = !r.parent_id.empty() && r.parent_id == r.external_id;
  set(kParentIdSame, parent_same);
  set(kParentId, !parent_same && r.parent_id != d.parent_id);
  set(kChildIndex, r.child_index != d.child_index);
  set(kPromptLen, r.prompt_len != d.prompt_len);
  set(kPromptTokens, !r.prompt_tokens.empty());
  set(kPrefixHashIds, !r.prefix_hash_ids.empty());
  set(kHashBlockSize, r.hash_block_size != d.hash_block_size);
  set(kPromptSalt, r.prompt_salt != d.prompt_salt);
  set(kCacheSalt, !r.cache_salt.empty());
  set(kLoraName, !r.lora_name.empty());
  set(kMinTokens, p.min_tokens != dp.min_tokens);
  set(kMinP, !same_bits(p.min_p, dp.min_p));
  set(kRepetitionPenalty, !same_bits(p.repetition_penalty, dp.repetition_penalty));
  set(kFrequencyPenalty, !same_bits(p.frequency_penalty, dp.frequency_penalty));
  set(kPresencePenalty, !same_bits(p.presence_penalty, dp.presence_penalty));
  set(kLogitBias, !p.logit_bias.empty());
  set(kAllowedTokenIds, !p.allowed_token_ids.empty());
  set(kMaxTokens, p.max_tokens != dp.max_tokens);
  set(kN, p.n != dp.n);
  set(kStopTokenIds, !p.stop_token_ids.empty());
  set(kIgnoreEos, p.ignore_eos != dp.ignore_eos);
  set(kSeed, p.seed != dp.seed);
  set(kTemperature, !same_bits(p.temperature, dp.temperature));
  set(kTopP, !same_bits(p.top_p, dp.top_p));
  set(kTopK, p.top_k != dp.top_k);
  set(kLogprobs, p.logprobs != dp.logprobs);
  set(kPromptLogprobs, p.prompt_logprobs != dp.prompt_logprobs);
  set(kPriority, r.priority != d.priority);
  set(kScriptedOutputLen, r.scripted_output_len != d.scripted_output_len);
  set(kKeepOutputTokens, r.keep_output_tokens != d.keep_output_tokens);
  set(kArrival, r.timeline.arrival != d.timeline.arrival);
  set(kQueued, r.timeline.queued != d.timeline.queued);

  Writer w(buffer_);
  w.varint(mask);
  w.varint(r.id);
  auto has = [mask](Field f) { return (mask >> f & 1) != 0; };
  if (has(kExternalId)) w.text(r.external_id);
  if (has(kParentId)) w.text(r.parent_id);
  if (has(kChildIndex)) w.signed_varint(r.child_index);
  if (has(kPromptLen)) w.signed_varint(r.prompt_len);
  if (has(kPromptTokens)) w.ints(r.prompt_tokens);
  if (has(kPrefixHashIds)) w.ints(r.prefix_hash_ids);
  if (has(kHashBlockSize)) w.signed_varint(r.hash_block_size);
  if (has(kPromptSalt)) w.varint(r.prompt_salt);
  if (has(kCacheSalt)) w.text(r.cache_salt);
  if (has(kLoraName)) w.text(r.lora_name);
  if (has(kMinTokens)) w.signed_varint(p.min_tokens);
  if (has(kMinP)) w.raw(p.min_p);
  if (has(kRepetitionPenalty)) w.raw(p.repetition_penalty);
  if (has(kFrequencyPenalty)) w.raw(p.frequency_penalty);
  if (has(kPresencePenalty)) w.raw(p.presence_penalty);
  if (has(kLogitBias)) {
    w.varint(p.logit_bias.size());
    for (const auto& [token, bias] : p.logit_bias) {
      w.signed_varint(token);
      w.raw(bias);
    }
  }
  if (has(kAllowedTokenIds)) w.ints(p.allowed_token_ids);
  if (has(kMaxTokens)) w.signed_varint(p.max_tokens);
  if (has(kN)) w.signed_varint(p.n);
  if (has(kStopTokenIds)) w.ints(p.stop_token_ids);
  if (has(kSeed)) w.varint(p.seed);
  if (has(kTemperature)) w.raw(p.temperature);
  if (has(kTopP)) w.raw(p.top_p);
  if (has(kTopK)) w.signed_varint(p.top_k);
  if (has(kLogprobs)) w.signed_varint(p.logprobs);
  if (has(kPromptLogprobs)) w.signed_varint(p.prompt_logprobs);
  if (has(kPriority)) w.signed_varint(r.priority);
  if (has(kScriptedOutputLen)) w.signed_varint(r.scripted_output_len);
  if (has(kArrival)) w.signed_varint(r.timeline.arrival);
  // Queued is at or after arrival: the difference is small.
  if (has(kQueued)) w.signed_varint(r.timeline.queued - r.timeline.arrival);
  ++count_;
}

size_t ParkedRequests::decode(size_t at, Request& r) const {
  Reader in(buffer_, at);
  const uint64_t mask = in.varint();
  auto has = [mask](Field f) { return (mask >> f & 1) != 0; };
  SamplingParams& p = r.params;
  r.id = in.varint();
  if (has(kExternalId)) r.external_id = in.text();
  if (has(kParentIdSame)) r.parent_id = r.external_id;
  if (has(kParentId)) r.parent_id = in.text();
  if (has(kChildIndex)) r.child_index = static_cast<int32_t>(in.signed_varint());
  if (has(kPromptLen)) r.prompt_len = in.signed_varint();
  if (has(kPromptTokens)) in.ints(r.prompt_tokens);
  if (has(kPrefixHashIds)) in.ints(r.prefix_hash_ids);
  if (has(kHashBlockSize)) r.hash_block_size = static_cast<int32_t>(in.signed_varint());
  if (has(kPromptSalt)) r.prompt_salt = in.varint();
  if (has(kCacheSalt)) r.cache_salt = in.text();
  if (has(kLoraName)) r.lora_name = in.text();
  if (has(kMinTokens)) p.min_tokens = in.signed_varint();
  if (has(kMinP)) p.min_p = in.raw<double>();
  if (has(kRepetitionPenalty)) p.repetition_penalty = in.raw<double>();
  if (has(kFrequencyPenalty)) p.frequency_penalty = in.raw<double>();
  if (has(kPresencePenalty)) p.presence_penalty = in.raw<double>();
  if (has(kLogitBias)) {
    p.logit_bias.resize(in.varint());
    for (auto& [token, bias] : p.logit_bias) {
      token = static_cast<int32_t>(in.signed_varint());
      bias = in.raw<float>();
    }
  }
  if (has(kAllowedTokenIds)) in.ints(p.allowed_token_ids);
  if (has(kMaxTokens)) p.max_tokens = in.signed_varint();
  if (has(kN)) p.n = static_cast<int32_t>(in.signed_varint());
  if (has(kStopTokenIds)) in.ints(p.stop_token_ids);
  if (has(kIgnoreEos)) p.ignore_eos = !SamplingParams{}.ignore_eos;
  if (has(kSeed)) p.seed = in.varint();
  if (has(kTemperature)) p.temperature = in.raw<double>();
  if (has(kTopP)) p.top_p = in.raw<double>();
  if (has(kTopK)) p.top_k = static_cast<int32_t>(in.signed_varint());
  if (has(kLogprobs)) p.logprobs = static_cast<int32_t>(in.signed_varint());
  if (has(kPromptLogprobs)) p.prompt_logprobs = static_cast<int32_t>(in.signed_varint());
  if (has(kPriority)) r.priority = static_cast<int32_t>(in.signed_varint());
  if (has(kScriptedOutputLen)) r.scripted_output_len = in.signed_varint();
  if (has(kKeepOutputTokens)) r.keep_output_tokens = !Request{}.keep_output_tokens;
  if (has(kArrival)) r.timeline.arrival = in.signed_varint();
  if (has(kQueued)) r.timeline.queued = r.timeline.arrival + in.signed_varint();
  return in.at();
}

std::unique_ptr<Request> ParkedRequests::pop() {
  if (count_ == 0) throw std::logic_error("ParkedRequests::pop on an empty store");
  auto r = std::make_unique<Request>();
  read_ = decode(read_, *r);
  --count_;
  if (count_ == 0) {
    buffer_.clear();
    read_ = 0;
  } else if (read_ >= (size_t{1} << 16) && read_ * 2 >= buffer_.size()) {
    // Reclaim the consumed half: each byte is moved at most once per halving (amortised O(1)).
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_));
    read_ = 0;
  }
  return r;
}

}  // namespace llm
