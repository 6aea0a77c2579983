// The shape of a decoder-only transformer as the mock GPU prices it: dense or mixture-of-experts
// layers, grouped-query attention, tied embeddings, and the bytes per weight of each kind of
// matrix (bf16, or fp8 linear layers). Model presets, the model JSON schema and Hugging Face
// config.json files (hf_model_config.h) all load into it.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

struct ModelShape {
  std::string name;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t ffn = 0;  // MLP width of the dense layers
  int64_t vocab = 0;
  bool tied_embeddings = false;
  int64_t params = 0;                  // total parameter count (for the weight bytes)
  int64_t weight_bytes_per_param = 2;  // bf16; the embeddings and LM head always
  int64_t max_context = 0;             // the model's max_position_embeddings: default max_model_len
  // Bytes per weight of the attention projections (QKV, output) and of the MLP and expert
  // matrices; 0 means weight_bytes_per_param. FP8 checkpoints and --quantization fp8 set 1.
  int64_t attention_weight_bytes = 0;
  int64_t mlp_weight_bytes = 0;
  // Mixture of experts: `moe_layers` of the layers replace the dense MLP with `num_experts`
  // routed experts of width `expert_ffn`, `experts_per_token` of which each token uses (top-k),
  // plus an always-used shared expert of width `shared_expert_ffn` (0: none). Dense: all 0.
  int64_t moe_layers = 0;
  int64_t num_experts = 0;
  int64_t experts_per_token = 0;
  int64_t expert_ffn = 0;
  int64_t shared_expert_ffn = 0;
};

// The parameters of one layer's matrices, whole model (not split by tensor parallelism).
struct LayerMatrices {
  double qkv = 0;        // H x (nh + 2 kv) d
  double attn_out = 0;   // nh d x H
  double dense_mlp = 0;  // 3 H I (gate, up, down) in a dense layer
  double expert = 0;     // 3 H I_e, one routed expert
  double shared_expert = 0;
  double router = 0;  // H x E
};
LayerMatrices layer_matrices(const ModelShape& m);

int64_t dense_layers(const ModelShape& m);  // layers - moe_layers
bool is_moe(const ModelShape& m);

int64_t attention_weight_bytes(const ModelShape& m);  // resolved (never 0)
int64_t mlp_weight_bytes(const ModelShape& m);

// Bytes of all weights (embeddings and LM head at weight_bytes_per_param, the attention and MLP
// matrices at their own widths, the rest at weight_bytes_per_param).
double model_weight_bytes(const ModelShape& m);

// Parameter count of a Llama-style decoder: embeddings, per layer QKV + output projection + gated
// MLP (or its experts, shared expert and router) + two RMSNorm weights, the final norm, and a
// separate LM head unless tied. Exact for the Llama, Mistral and Mixtral checkpoints; Qwen2.5 also
// has QKV biases and Qwen3 q/k norms, which it omits (hf_model_config adds them).
int64_t params_from_shape(const ModelShape& m);

// "" when the shape can be priced; else "FIELD: what is wrong" (non-positive sizes, kv_heads
// above heads or not dividing them, an MoE half given).
std::string model_shape_problem(const ModelShape& m);

}  // namespace llm
