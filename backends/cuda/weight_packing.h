// Host-side weight preparation for the CUDA backend: fp32 (as backends/model loads every format)
// to bf16 with round-to-nearest-even, and the fused matrices the GEMMs take, in cuBLAS's
// column-major view of the row-major [out][in] weights: q, k and v rows stacked into one QKV
// matrix, gate and up rows into one gate+up matrix, so each is one GEMM per layer.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/model/model_weights.h"

namespace llm {

// bf16 bits of x: round to nearest, ties to even; NaN stays a (quiet) NaN; overflow rounds to
// infinity as IEEE rounding does.
uint16_t float_to_bf16(float x);
float bf16_to_float(uint16_t bits);
std::vector<uint16_t> to_bf16(std::span<const float> values);

// Rows of `parts` one after another, as bf16: [sum of rows][cols].
std::vector<uint16_t> stack_rows_bf16(std::initializer_list<std::span<const float>> parts);

// [q_heads*head_dim + 2*kv_heads*head_dim][hidden]: q_proj, k_proj, v_proj rows.
std::vector<uint16_t> pack_qkv(const LayerWeights& layer);
// [2*intermediate][hidden]: gate_proj rows then up_proj rows (kernels/elementwise.h silu_mul
// reads gate at [0, ffn) and up at [ffn, 2*ffn) of each output row).
std::vector<uint16_t> pack_gate_up(const LayerWeights& layer);

// Device bytes of the weights the backend uploads (bf16 matrices, fp32 norms and biases).
int64_t cuda_weight_bytes(const ModelWeights& weights);

}  // namespace llm
