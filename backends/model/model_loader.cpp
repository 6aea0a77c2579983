#include "backends/model/model_loader.h"

#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>

#include "backends/formats/float_convert.h"
#include "backends/formats/gguf_reader.h"
#include "backends/formats/safetensors_reader.h"
#include "backends/model/gguf_model_config.h"
#include "backends/model/hf_config.h"
#include "backends/model/model_tensors.h"
#include "backends/model/rope_layout.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

std::string dims_string(const std::vector<uint64_t>& dims) {
  std::vector<int64_t> s(dims.begin(), dims.end());
  return shape_string(s);
}

void fill_from_f32_bytes(std::span<const std::byte> bytes, std::vector<float>& out) {
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
}

// Undoes GGUF's llama Q/K layout in place (see rope_layout.h).
void unpermute_rope_rows(const ModelTensor& t, const ModelConfig& c, std::vector<float>& data) {
  if (c.architecture != "llama" || t.rope_heads == 0) return;
  const int64_t cols = t.shape.size() == 2 ? t.shape[1] : 1;
  data = interleaved_to_rotate_half(data, t.rope_heads, c.head_dim, cols);
}

void init_layers(ModelWeights& w) {
  w.layers.assign(static_cast<size_t>(w.config.num_hidden_layers), LayerWeights{});
}

void check_supported(const ModelConfig& c, const std::string& file) {
  if (c.mlp_bias) throw ModelFormatError(file, "mlp_bias", "MLP biases are unsupported");
}

// Each layer has at least 9 tensors: a layer count the file cannot hold is corrupt metadata, found
// before anything is sized by it.
void check_layer_count(int64_t layers, size_t tensors, const std::string& file,
                       const std::string& key) {
  if (layers > static_cast<int64_t>(tensors / 9)) {
    throw ModelFormatError(file, key,
                           std::to_string(layers) + " layers, but the model holds only " +
                               std::to_string(tensors) + " tensors");
  }
}

// One tensor of a safetensors checkpoint: the file that holds it and its entry.
struct SafetensorsRef {
  const SafetensorsFile* file;
  const SafetensorsTensor* tensor;
};

}  // namespace

ModelWeights load_gguf_model_weights(const GgufFile& f) {
  ModelWeights w;
  w.config = gguf_model_config(f);
  check_supported(w.config, f.name());
  check_layer_count(w.config.num_hidden_layers, f.tensors().size(), f.name(),
                    w.config.architecture + ".block_count");
  init_layers(w);
  for (const ModelTensor& t : model_tensors(w.config)) {
    const GgufTensorInfo* info = f.find_tensor(t.gguf_name);
    if (info == nullptr) {
      throw ModelFormatError(f.name(), t.gguf_name, "missing (the model's config calls for it)");
    }
    if (info->dims != t.gguf_dims()) {
      throw ModelFormatError(f.name(), t.gguf_name,
                             "shape " + dims_string(info->dims) + " but the config implies " +
                                 dims_string(t.gguf_dims()));
    }
    std::vector<float>& out = tensor_data(w, t);
    out.resize(static_cast<size_t>(t.num_elements()));
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(info->data),
                                           info->n_bytes);
    switch (info->type) {
      case GgmlType::kF32:
        fill_from_f32_bytes(bytes, out);
        break;
      case GgmlType::kF16:
        f16_bytes_to_f32(bytes, out.data());
        break;
      case GgmlType::kBF16:
        bf16_bytes_to_f32(bytes, out.data());
        break;
      case GgmlType::kQ8_0:
        q8_0_bytes_to_f32(bytes, out.data());
        break;
      default: {
        const auto traits = ggml_type_traits(static_cast<uint32_t>(info->type));
        throw ModelFormatError(f.name(), t.gguf_name,
                               std::string("type ") + (traits ? traits->name : "?") +
                                   " is unsupported (supported: F32, F16, BF16, Q8_0)");
      }
    }
    unpermute_rope_rows(t, w.config, out);
  }
  check_weight_shapes(w, f.name());
  return w;
}

ModelWeights load_safetensors_model_weights(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  if (!fs::is_regular_file(config_path)) {
    throw ModelFormatError(dir, "config.json", "missing (a safetensors model needs it)");
  }
  ModelWeights w;
  w.config = load_hf_config(config_path);
  check_supported(w.config, config_path);

  std::optional<SafetensorsFile> single;
  std::optional<ShardedSafetensors> sharded;
  std::function<std::optional<SafetensorsRef>(const std::string&)> find;
  std::string label;
  if (const std::string p = dir + "/model.safetensors"; fs::exists(p)) {
    single.emplace(SafetensorsFile::open(p));
    label = p;
    find = [&](const std::string& name) -> std::optional<SafetensorsRef> {
      const SafetensorsTensor* t = single->find(name);
      if (t == nullptr) return std::nullopt;
      return SafetensorsRef{&*single, t};
    };
  } else if (const std::string ip = dir + "/model.safetensors.index.json"; fs::exists(ip)) {
    sharded.emplace(ShardedSafetensors::open(ip));
    label = ip;
    find = [&](const std::string& name) -> std::optional<SafetensorsRef> {
      auto r = sharded->find(name);
      if (!r) return std::nullopt;
      return SafetensorsRef{r->file, r->tensor};
    };
  } else {
    throw ModelFormatError(dir, "model.safetensors",
                           "missing (and no model.safetensors.index.json either)");
  }

  check_layer_count(w.config.num_hidden_layers,
                    single ? single->tensors().size() : sharded->tensor_names().size(), config_path,
                    "num_hidden_layers");
  init_layers(w);
  for (const ModelTensor& t : model_tensors(w.config)) {
    const std::optional<SafetensorsRef> ref = find(t.hf_name);
    if (!ref) throw ModelFormatError(label, t.hf_name, "missing (config.json calls for it)");
    const std::string& file = ref->file->path();
    if (ref->tensor->shape != t.shape) {
      throw ModelFormatError(file, t.hf_name,
                             "shape " + shape_string(ref->tensor->shape) +
                                 " but config.json implies " + shape_string(t.shape));
    }
    std::vector<float>& out = tensor_data(w, t);
    out.resize(static_cast<size_t>(t.num_elements()));
    const std::span<const std::byte> bytes = ref->file->data(*ref->tensor);
    switch (ref->tensor->dtype) {
      case SafetensorsDType::kF32:
        fill_from_f32_bytes(bytes, out);
        break;
      case SafetensorsDType::kF16:
        f16_bytes_to_f32(bytes, out.data());
        break;
      case SafetensorsDType::kBF16:
        bf16_bytes_to_f32(bytes, out.data());
        break;
      default:
        throw ModelFormatError(file, t.hf_name,
                               std::string("dtype ") + safetensors_dtype_name(ref->tensor->dtype) +
                                   " is unsupported (supported: F32, F16, BF16)");
    }
  }
  check_weight_shapes(w, dir);
  return w;
}

ModelWeights load_model_weights(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw ModelFormatError(path, "", "no such file or directory");
  if (fs::is_directory(st)) return load_safetensors_model_weights(path);
  const fs::path p(path);
  // A safetensors file or index given directly: its folder is the checkpoint.
  if (p.extension() == ".safetensors" || p.filename() == "model.safetensors.index.json") {
    const fs::path parent = p.parent_path();
    return load_safetensors_model_weights(parent.empty() ? "." : parent.string());
  }
  return load_gguf_model_weights(GgufFile::open(path));
}

}  // namespace llm
