#include "backends/model/model_writer.h"

#include <filesystem>
#include <stdexcept>

#include "backends/formats/float_convert.h"
#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/formats/safetensors_writer.h"
#include "backends/model/gguf_model_config.h"
#include "backends/model/hf_config.h"
#include "backends/model/model_tensors.h"
#include "backends/model/rope_factors.h"
#include "backends/model/rope_layout.h"
#include "core/pending_file.h"

namespace llm {
namespace {

const char* torch_dtype_of(WeightType type) {
  switch (type) {
    case WeightType::kF16:
      return "float16";
    case WeightType::kBF16:
      return "bfloat16";
    default:
      return "float32";
  }
}

void check_consistent(const ModelWeights& weights) {
  try {
    check_weight_shapes(weights, "model writer");
  } catch (const ModelFormatError& e) {
    throw std::invalid_argument(e.what());
  }
}

std::vector<uint8_t> to_u8(std::vector<std::byte> bytes) {
  std::vector<uint8_t> out(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) out[i] = std::to_integer<uint8_t>(bytes[i]);
  return out;
}

}  // namespace

std::optional<WeightType> parse_weight_type(std::string_view name) {
  for (WeightType t : {WeightType::kF32, WeightType::kF16, WeightType::kBF16, WeightType::kQ8_0}) {
    if (name == weight_type_name(t)) return t;
  }
  return std::nullopt;
}

const char* weight_type_name(WeightType type) {
  switch (type) {
    case WeightType::kF32:
      return "f32";
    case WeightType::kF16:
      return "f16";
    case WeightType::kBF16:
      return "bf16";
    case WeightType::kQ8_0:
      return "q8_0";
  }
  return "?";
}

void round_weights_to(ModelWeights& weights, WeightType type) {
  if (type != WeightType::kF16 && type != WeightType::kBF16) return;
  for (const ModelTensor& t : model_tensors(weights.config)) {
    for (float& x : tensor_data(weights, t)) {
      x = type == WeightType::kF16 ? f16_to_f32(f32_to_f16(x)) : bf16_to_f32(f32_to_bf16(x));
    }
  }
}

std::vector<std::string> write_safetensors_model(const ModelWeights& weights,
                                                 const std::string& dir, WeightType type) {
  if (type == WeightType::kQ8_0) {
    throw std::invalid_argument("safetensors writer: q8_0 is a GGUF-only type");
  }
  check_consistent(weights);
  SafetensorsWriter writer;
  writer.set_metadata("format", "pt");
  for (const ModelTensor& t : model_tensors(weights.config)) {
    const std::vector<float>& data = tensor_data(weights, t);
    switch (type) {
      case WeightType::kF16:
        writer.add(t.hf_name, SafetensorsDType::kF16, t.shape, f32_to_f16_bytes(data));
        break;
      case WeightType::kBF16:
        writer.add(t.hf_name, SafetensorsDType::kBF16, t.shape, f32_to_bf16_bytes(data));
        break;
      default:
        writer.add_f32(t.hf_name, t.shape, data);
        break;
    }
  }
  ModelConfig config = weights.config;
  config.torch_dtype = torch_dtype_of(type);
  const std::string config_json = hf_config_to_json(config).dump(2) + "\n";  // may throw: first
  std::filesystem::create_directories(dir);
  const std::vector<std::string> paths = {dir + "/model.safetensors", dir + "/config.json"};
  writer.write(paths[0]);
  write_file_atomically(paths[1], config_json);
  return paths;
}

void write_gguf_model(const ModelWeights& weights, const GgufFile& vocab_source,
                      const std::string& path, WeightType type,
                      const std::optional<std::string>& chat_template) {
  check_consistent(weights);
  const ModelConfig& c = weights.config;
  GgufWriter w;
  const GgufFileType file_type = type == WeightType::kF16    ? GgufFileType::kMostlyF16
                                 : type == WeightType::kBF16 ? GgufFileType::kMostlyBF16
                                 : type == WeightType::kQ8_0 ? GgufFileType::kMostlyQ8_0
                                                             : GgufFileType::kAllF32;
  set_gguf_model_config(c, file_type, w);
  for (const auto& [key, value] : vocab_source.metadata()) {
    if (key.rfind("tokenizer.", 0) != 0) continue;
    if (chat_template && key == "tokenizer.chat_template") continue;
    w.set(key, value);
  }
  if (chat_template && !chat_template->empty()) {
    w.set_string("tokenizer.chat_template", *chat_template);
  }
  if (const GgufValue* tokens = vocab_source.find("tokenizer.ggml.tokens")) {
    const size_t n = tokens->as_array() ? tokens->as_array()->size() : 0;
    if (static_cast<int64_t>(n) != c.vocab_size) {
      throw std::invalid_argument("GGUF writer: the vocabulary " + vocab_source.name() + " has " +
                                  std::to_string(n) + " tokens but the model's vocab_size is " +
                                  std::to_string(c.vocab_size));
    }
  }
  // The config's special ids win; the vocabulary's entries stay as they are when they agree.
  auto set_id = [&](const char* key, int32_t id) {
    const GgufValue* v = vocab_source.find(key);
    if (id >= 0 && (v == nullptr || v->as_i64() != id)) w.set_u32(key, static_cast<uint32_t>(id));
  };
  set_id("tokenizer.ggml.bos_token_id", c.bos_token_id);
  if (!c.eos_token_ids.empty()) set_id("tokenizer.ggml.eos_token_id", c.eos_token_ids[0]);
  if (c.eos_token_ids.size() > 1) set_id("tokenizer.ggml.eot_token_id", c.eos_token_ids[1]);

  // llama.cpp's converter emits the RoPE factors first, as an F32 tensor of head_dim / 2.
  if (const std::vector<float> factors = rope_freq_factors_of(c); !factors.empty()) {
    w.add_tensor("rope_freqs.weight", {static_cast<uint64_t>(factors.size())}, GgmlType::kF32,
                 to_u8(f32_to_bytes(factors)));
  }
  const bool permute_rope = c.architecture == "llama";
  for (const ModelTensor& t : model_tensors(c)) {
    const std::vector<float>& src = tensor_data(weights, t);
    std::vector<float> permuted;
    std::span<const float> data = src;
    if (permute_rope && t.rope_heads > 0) {
      const int64_t cols = t.shape.size() == 2 ? t.shape[1] : 1;
      permuted = rotate_half_to_interleaved(src, t.rope_heads, c.head_dim, cols);
      data = permuted;
    }
    WeightType stored = t.shape.size() == 1 ? WeightType::kF32 : type;
    if (stored == WeightType::kQ8_0 && t.shape.back() % kQ8_0BlockElems != 0) {
      stored = WeightType::kF32;
    }
    switch (stored) {
      case WeightType::kF32:
        w.add_tensor(t.gguf_name, t.gguf_dims(), GgmlType::kF32, to_u8(f32_to_bytes(data)));
        break;
      case WeightType::kF16:
        w.add_tensor(t.gguf_name, t.gguf_dims(), GgmlType::kF16, to_u8(f32_to_f16_bytes(data)));
        break;
      case WeightType::kBF16:
        w.add_tensor(t.gguf_name, t.gguf_dims(), GgmlType::kBF16, to_u8(f32_to_bf16_bytes(data)));
        break;
      case WeightType::kQ8_0:
        w.add_tensor(t.gguf_name, t.gguf_dims(), GgmlType::kQ8_0, to_u8(f32_to_q8_0_bytes(data)));
        break;
    }
  }
  w.write_file(path);
}

}  // namespace llm
