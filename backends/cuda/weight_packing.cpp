#include "backends/cuda/weight_packing.h"

#include <bit>
#include <cmath>

namespace llm {

uint16_t float_to_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

std::vector<uint16_t> to_bf16(std::span<const float> values) {
  std::vector<uint16_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = float_to_bf16(values[i]);
  return out;
}

std::vector<uint16_t> stack_rows_bf16(std::initializer_list<std::span<const float>> parts) {
  std::vector<uint16_t> out;
  for (std::span<const float> p : parts) {
    for (float x : p) out.push_back(float_to_bf16(x));
  }
  return out;
}

std::vector<uint16_t> pack_qkv(const LayerWeights& l) {
  return stack_rows_bf16({l.q_proj, l.k_proj, l.v_proj});
}

std::vector<uint16_t> pack_gate_up(const LayerWeights& l) {
  return stack_rows_bf16({l.gate_proj, l.up_proj});
}

int64_t cuda_weight_bytes(const ModelWeights& w) {
  int64_t bf16 = static_cast<int64_t>(w.tok_embeddings.size() + w.lm_head.size());
  int64_t fp32 = static_cast<int64_t>(w.final_norm.size());
  for (const LayerWeights& l : w.layers) {
    bf16 +=
        static_cast<int64_t>(l.q_proj.size() + l.k_proj.size() + l.v_proj.size() + l.o_proj.size() +
                             l.gate_proj.size() + l.up_proj.size() + l.down_proj.size());
    fp32 += static_cast<int64_t>(l.attn_norm.size() + l.ffn_norm.size() + l.q_bias.size() +
                                 l.k_bias.size() + l.v_bias.size());
  }
  return 2 * bf16 + 4 * fp32;
}

}  // namespace llm
