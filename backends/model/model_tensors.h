// The list of tensors a ModelWeights holds for its config, each with its Hugging Face (safetensors)
// name, its GGUF (llama.cpp) name and its shape, so that loaders and writers of both formats walk
// one table. Shapes are in PyTorch order ([out_features, in_features]); GGUF stores the reverse
// (ne[0] = in_features) over the same row-major bytes.
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/model/model_weights.h"

namespace llm {

struct ModelTensor {
  enum class Kind {
    kTokEmbeddings,
    kFinalNorm,
    kLmHead,
    kAttnNorm,
    kQProj,
    kKProj,
    kVProj,
    kOProj,
    kQBias,
    kKBias,
    kVBias,
    kFfnNorm,
    kGateProj,
    kUpProj,
    kDownProj,
  };
  Kind kind;
  int64_t layer = -1;  // -1 for the tensors outside the layers
  std::string hf_name;
  std::string gguf_name;
  std::vector<int64_t> shape;  // PyTorch order
  // RoPE rows: the number of heads whose rows GGUF's llama layout permutes (0 for other tensors).
  int64_t rope_heads = 0;

  int64_t num_elements() const;
  std::vector<uint64_t> gguf_dims() const;  // shape reversed
};

// Every tensor the config calls for, in file order: embeddings, each layer, final norm, lm_head
// (absent when tied), q/k/v biases only with attention_bias.
std::vector<ModelTensor> model_tensors(const ModelConfig& config);

std::vector<float>& tensor_data(ModelWeights& weights, const ModelTensor& tensor);
const std::vector<float>& tensor_data(const ModelWeights& weights, const ModelTensor& tensor);

// "[4096, 128]"
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace llm
