#include "backends/model/gguf_model_config.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/model/rope_factors.h"

namespace llm {
namespace {

class MetaReader {
 public:
  MetaReader(const GgufFile& f, std::string arch) : f_(f), arch_(std::move(arch)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& detail) const {
    throw ModelFormatError(f_.name(), key, detail);
  }
  std::string key(const char* suffix) const { return arch_ + "." + suffix; }

  // A positive integer <arch>.suffix; `fallback` when absent (nullopt: required).
  int64_t positive(const char* suffix, std::optional<int64_t> fallback) const {
    const std::string k = key(suffix);
    if (!f_.has(k)) {
      if (!fallback) fail(k, "missing");
      return *fallback;
    }
    const int64_t v = f_.get_i64(k);
    if (v <= 0 || v > kMaxModelDim)
      fail(k, "must be a positive dimension, got " + std::to_string(v));
    return v;
  }

  double positive_float(const char* suffix, std::optional<double> fallback) const {
    const std::string k = key(suffix);
    if (!f_.has(k)) {
      if (!fallback) fail(k, "missing");
      return *fallback;
    }
    const float v = f_.get_f32(k);
    if (!(v > 0) || !std::isfinite(v)) fail(k, "must be positive, got " + std::to_string(v));
    return float_to_shortest_double(v);
  }

  // A token id key; -1 when absent. Must lie inside the vocabulary.
  int32_t token_id(const char* k, int64_t vocab) const {
    if (!f_.has(k)) return -1;
    const int64_t id = f_.get_i64(k);
    if (id < 0 || id >= vocab) {
      fail(k, "token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(vocab));
    }
    return static_cast<int32_t>(id);
  }

 private:
  const GgufFile& f_;
  std::string arch_;
};

// llama.cpp's per-frequency RoPE divisors (Llama 3.1 scaling): the optional F32 tensor
// rope_freqs.weight of head_dim / 2 values. Empty when absent.
std::vector<float> rope_freq_factors_of_gguf(const GgufFile& f, int64_t head_dim) {
  constexpr const char* kName = "rope_freqs.weight";
  const GgufTensorInfo* t = f.find_tensor(kName);
  if (t == nullptr) return {};
  const uint64_t half = static_cast<uint64_t>(head_dim / 2);
  if (t->dims.size() != 1 || t->dims[0] != half) {
    std::string dims;
    for (uint64_t d : t->dims) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    throw ModelFormatError(f.name(), kName,
                           "shape [" + dims + "] but head dimension " + std::to_string(head_dim) +
                               " needs [" + std::to_string(half) + "] (one factor per frequency)");
  }
  if (t->type != GgmlType::kF32) {
    const auto traits = ggml_type_traits(static_cast<uint32_t>(t->type));
    throw ModelFormatError(f.name(), kName,
                           std::string("type ") + (traits ? traits->name : "?") +
                               " is unsupported (llama.cpp stores it as F32)");
  }
  if (t->n_bytes != half * sizeof(float)) {
    throw ModelFormatError(f.name(), kName, "holds " + std::to_string(t->n_bytes) + " bytes");
  }
  std::vector<float> factors(half);
  if (half > 0) std::memcpy(factors.data(), t->data, t->n_bytes);
  check_rope_freq_factors(factors, head_dim, f.name(), kName);
  return factors;
}

}  // namespace

double float_to_shortest_double(float f) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  std::from_chars(buf, res.ptr, d);
  return d;
}

ModelConfig gguf_model_config(const GgufFile& f) {
  const std::optional<std::string> arch = f.find_string("general.architecture");
  if (!arch) throw ModelFormatError(f.name(), "general.architecture", "missing");
  if (*arch != "llama" && *arch != "qwen2") {
    throw ModelFormatError(f.name(), "general.architecture",
                           "unsupported architecture \"" + *arch + "\" (supported: llama, qwen2)");
  }
  MetaReader r(f, *arch);
  ModelConfig c;
  c.architecture = *arch;
  c.hidden_size = r.positive("embedding_length", std::nullopt);
  c.num_hidden_layers = r.positive("block_count", std::nullopt);
  c.intermediate_size = r.positive("feed_forward_length", std::nullopt);
  c.num_attention_heads = r.positive("attention.head_count", std::nullopt);
  c.num_key_value_heads = r.positive("attention.head_count_kv", c.num_attention_heads);
  if (!f.has(r.key("attention.key_length")) && c.hidden_size % c.num_attention_heads != 0) {
    r.fail(r.key("embedding_length"),
           std::to_string(c.hidden_size) + " is not divisible by attention.head_count " +
               std::to_string(c.num_attention_heads) + " and attention.key_length is not given");
  }
  c.head_dim = r.positive("attention.key_length", c.hidden_size / c.num_attention_heads);
  const int64_t value_length = r.positive("attention.value_length", c.head_dim);
  if (value_length != c.head_dim) {
    r.fail(r.key("attention.value_length"), std::to_string(value_length) +
                                                " differs from attention.key_length " +
                                                std::to_string(c.head_dim) + " (unsupported)");
  }
  if (c.head_dim % 2 != 0) {
    r.fail(r.key("attention.key_length"),
           "head dimension must be even for RoPE, got " + std::to_string(c.head_dim));
  }
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    r.fail(r.key("attention.head_count_kv"), std::to_string(c.num_key_value_heads) +
                                                 " does not divide attention.head_count " +
                                                 std::to_string(c.num_attention_heads));
  }
  const int64_t rope_dims = r.positive("rope.dimension_count", c.head_dim);
  if (rope_dims != c.head_dim) {
    r.fail(r.key("rope.dimension_count"), std::to_string(rope_dims) + " differs from the head " +
                                              "dimension " + std::to_string(c.head_dim) +
                                              " (partial rotary embeddings are unsupported)");
  }
  c.rms_norm_eps = r.positive_float("attention.layer_norm_rms_epsilon", std::nullopt);
  c.rope_theta = r.positive_float("rope.freq_base", 10000.0);
  c.max_position_embeddings = r.positive("context_length", std::nullopt);

  const std::string scaling_key = r.key("rope.scaling.type");
  const std::string scaling = f.find_string(scaling_key).value_or("none");
  if (scaling == "linear") {
    c.rope_scaling.type = RopeScaling::Type::kLinear;
    c.rope_scaling.factor = r.positive_float("rope.scaling.factor", std::nullopt);
  } else if (scaling != "none") {
    r.fail(scaling_key, "unsupported RoPE scaling \"" + scaling + "\" (supported: none, linear)");
  } else if (f.has(r.key("rope.scale_linear"))) {
    const double factor = r.positive_float("rope.scale_linear", std::nullopt);
    if (factor != 1.0) {
      c.rope_scaling.type = RopeScaling::Type::kLinear;
      c.rope_scaling.factor = factor;
    }
  }
  c.rope_freq_factors = rope_freq_factors_of_gguf(f, c.head_dim);

  if (f.has(r.key("vocab_size"))) {
    c.vocab_size = r.positive("vocab_size", std::nullopt);
  } else if (f.has("tokenizer.ggml.tokens")) {
    c.vocab_size = static_cast<int64_t>(f.get_array("tokenizer.ggml.tokens").size());
  } else if (const GgufTensorInfo* t = f.find_tensor("token_embd.weight");
             t != nullptr && t->dims.size() == 2) {
    c.vocab_size = static_cast<int64_t>(t->dims[1]);
  }
  if (c.vocab_size <= 0) {
    throw ModelFormatError(f.name(), r.key("vocab_size"),
                           "missing (and no tokenizer.ggml.tokens or token_embd.weight)");
  }
  c.tie_word_embeddings = f.find_tensor("output.weight") == nullptr;
  c.attention_bias = c.architecture == "qwen2" || f.find_tensor("blk.0.attn_q.bias") != nullptr;
  c.bos_token_id = r.token_id("tokenizer.ggml.bos_token_id", c.vocab_size);
  for (const char* k : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"}) {
    const int32_t id = r.token_id(k, c.vocab_size);
    if (id >= 0 && (c.eos_token_ids.empty() || c.eos_token_ids[0] != id)) {
      c.eos_token_ids.push_back(id);
    }
  }
  if (const std::optional<uint32_t> ft = f.find_u32("general.file_type")) {
    switch (static_cast<GgufFileType>(*ft)) {
      case GgufFileType::kAllF32:
        c.torch_dtype = "float32";
        break;
      case GgufFileType::kMostlyF16:
        c.torch_dtype = "float16";
        break;
      case GgufFileType::kMostlyBF16:
        c.torch_dtype = "bfloat16";
        break;
      default:
        break;
    }
  }
  return c;
}

void set_gguf_model_config(const ModelConfig& c, GgufFileType file_type, GgufWriter& w) {
  if (c.architecture != "llama" && c.architecture != "qwen2") {
    throw std::invalid_argument("GGUF writer: unsupported architecture \"" + c.architecture + "\"");
  }
  if (c.mlp_bias) throw std::invalid_argument("GGUF writer: MLP biases are unsupported");
  const std::string& a = c.architecture;
  auto u32 = [&](const std::string& suffix, int64_t v) {
    w.set_u32(a + "." + suffix, static_cast<uint32_t>(v));
  };
  w.set_string("general.architecture", a);
  w.set_string("general.name", "llmserve " + a + " model");
  w.set_u32("general.file_type", static_cast<uint32_t>(file_type));
  if (file_type == GgufFileType::kMostlyQ8_0) w.set_u32("general.quantization_version", 2);
  u32("vocab_size", c.vocab_size);
  u32("context_length", c.max_position_embeddings);
  u32("embedding_length", c.hidden_size);
  u32("block_count", c.num_hidden_layers);
  u32("feed_forward_length", c.intermediate_size);
  u32("attention.head_count", c.num_attention_heads);
  u32("attention.head_count_kv", c.num_key_value_heads);
  if (c.head_dim * c.num_attention_heads != c.hidden_size) {
    u32("attention.key_length", c.head_dim);
    u32("attention.value_length", c.head_dim);
  }
  u32("rope.dimension_count", c.head_dim);
  w.set_f32(a + ".rope.freq_base", static_cast<float>(c.rope_theta));
  w.set_f32(a + ".attention.layer_norm_rms_epsilon", static_cast<float>(c.rms_norm_eps));
  if (c.rope_scaling.type == RopeScaling::Type::kLinear) {
    w.set_string(a + ".rope.scaling.type", "linear");
    w.set_f32(a + ".rope.scaling.factor", static_cast<float>(c.rope_scaling.factor));
  }
}

}  // namespace llm
