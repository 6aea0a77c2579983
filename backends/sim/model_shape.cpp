#include "backends/sim/model_shape.h"

namespace llm {

LayerMatrices layer_matrices(const ModelShape& m) {
  const double h = static_cast<double>(m.hidden);
  const double d = static_cast<double>(m.head_dim);
  LayerMatrices x;
  x.qkv = h * static_cast<double>(m.heads + 2 * m.kv_heads) * d;
  x.attn_out = static_cast<double>(m.heads) * d * h;
  x.dense_mlp = 3.0 * h * static_cast<double>(m.ffn);
  x.expert = 3.0 * h * static_cast<double>(m.expert_ffn);
  x.shared_expert = 3.0 * h * static_cast<double>(m.shared_expert_ffn);
  x.router = h * static_cast<double>(m.num_experts);
  return x;
}

int64_t dense_layers(const ModelShape& m) { return m.layers - m.moe_layers; }

bool is_moe(const ModelShape& m) { return m.moe_layers > 0 && m.num_experts > 0; }

int64_t attention_weight_bytes(const ModelShape& m) {
  return m.attention_weight_bytes > 0 ? m.attention_weight_bytes : m.weight_bytes_per_param;
}

int64_t mlp_weight_bytes(const ModelShape& m) {
  return m.mlp_weight_bytes > 0 ? m.mlp_weight_bytes : m.weight_bytes_per_param;
}

double model_weight_bytes(const ModelShape& m) {
  const LayerMatrices x = layer_matrices(m);
  const double attention = static_cast<double>(m.layers) * (x.qkv + x.attn_out);
  const double mlp = static_cast<double>(dense_layers(m)) * x.dense_mlp +
                     static_cast<double>(m.moe_layers) *
                         (static_cast<double>(m.num_experts) * x.expert + x.shared_expert);
  const double base = static_cast<double>(m.weight_bytes_per_param);
  // Everything at the base width, then the matrices moved to their own width.
  return static_cast<double>(m.params) * base +
         attention * static_cast<double>(attention_weight_bytes(m) - m.weight_bytes_per_param) +
         mlp * static_cast<double>(mlp_weight_bytes(m) - m.weight_bytes_per_param);
}

int64_t params_from_shape(const ModelShape& m) {
  const int64_t h = m.hidden;
  const int64_t attention = h * (m.heads + 2 * m.kv_heads) * m.head_dim + m.heads * m.head_dim * h;
  const int64_t dense_mlp = 3 * h * m.ffn;
  const int64_t moe_mlp = m.num_experts * 3 * h * m.expert_ffn + 3 * h * m.shared_expert_ffn +
                          h * m.num_experts;  // experts, shared expert, router
  const int64_t norms = 2 * h;
  const int64_t embeddings = m.vocab * h;
  const int64_t lm_head = m.tied_embeddings ? 0 : m.vocab * h;
  return embeddings + m.layers * (attention + norms) + dense_layers(m) * dense_mlp +
         m.moe_layers * moe_mlp + h + lm_head;
}

std::string model_shape_problem(const ModelShape& m) {
  const std::pair<const char*, int64_t> positive[] = {
      {"layers", m.layers},
      {"hidden", m.hidden},
      {"heads", m.heads},
      {"kv_heads", m.kv_heads},
      {"head_dim", m.head_dim},
      {"vocab", m.vocab},
      {"max_context", m.max_context},
      {"weight_bytes_per_param", m.weight_bytes_per_param}};
  for (const auto& [field, value] : positive) {
    if (value <= 0) return std::string(field) + ": must be > 0, got " + std::to_string(value);
  }
  // Bounds far above any real model keep the parameter arithmetic inside 64 bits.
  struct Bound {
    const char* field;
    int64_t value, limit;
  };
  const Bound bounds[] = {{"layers", m.layers, 4096},
                          {"hidden", m.hidden, 131072},
                          {"heads", m.heads, 4096},
                          {"kv_heads", m.kv_heads, 4096},
                          {"head_dim", m.head_dim, 4096},
                          {"ffn", m.ffn, 524288},
                          {"vocab", m.vocab, 8388608},
                          {"num_experts", m.num_experts, 1024},
                          {"expert_ffn", m.expert_ffn, 524288},
                          {"shared_expert_ffn", m.shared_expert_ffn, 524288}};
  for (const Bound& b : bounds) {
    if (b.value > b.limit) {
      return std::string(b.field) + ": above " + std::to_string(b.limit) + ", not a model";
    }
  }
  if (m.kv_heads > m.heads) return "kv_heads: must not exceed heads";
  if (m.heads % m.kv_heads != 0) {
    return "kv_heads: must divide heads (" + std::to_string(m.heads) + "), got " +
           std::to_string(m.kv_heads);
  }
  if (m.moe_layers < 0 || m.moe_layers > m.layers) {
    return "moe_layers: must be in [0, layers], got " + std::to_string(m.moe_layers);
  }
  if (dense_layers(m) > 0 && m.ffn <= 0) return "ffn: must be > 0 with dense layers";
  if (m.moe_layers > 0) {
    if (m.num_experts <= 0) return "num_experts: must be > 0 with MoE layers";
    if (m.experts_per_token <= 0 || m.experts_per_token > m.num_experts) {
      return "experts_per_token: must be in [1, num_experts], got " +
             std::to_string(m.experts_per_token);
    }
    if (m.expert_ffn <= 0) return "expert_ffn: must be > 0 with MoE layers";
  }
  if (m.shared_expert_ffn < 0) return "shared_expert_ffn: must be >= 0";
  for (const auto& [field, value] :
       {std::pair<const char*, int64_t>{"attention_weight_bytes", m.attention_weight_bytes},
        {"mlp_weight_bytes", m.mlp_weight_bytes}}) {
    if (value < 0 || value > 4) return std::string(field) + ": must be 0 (as the rest) to 4";
  }
  if (m.params <= 0) return "params: must be > 0 (leave it out to count it from the shape)";
  return "";
}

}  // namespace llm
