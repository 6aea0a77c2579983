// The two RoPE pair layouts of Q/K projection rows. Hugging Face's rotate-half layout pairs
// dimension i of a head with i + head_dim/2; GGUF's llama layout (llama.cpp's convert script
// permutes q_proj/k_proj weights and biases for arch llama, not for qwen2, which uses NEOX RoPE)
// pairs 2i with 2i+1. Within each head, interleaved row 2i+s holds rotate-half row s*head_dim/2+i.
// The functions move whole rows of `cols` values (cols = 1 for a bias vector).
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace llm {

// HF rotate-half -> GGUF interleaved (what the GGUF writer stores for llama).
std::vector<float> rotate_half_to_interleaved(std::span<const float> rows, int64_t n_heads,
                                              int64_t head_dim, int64_t cols);
// GGUF interleaved -> HF rotate-half (what the GGUF loader does for llama).
std::vector<float> interleaved_to_rotate_half(std::span<const float> rows, int64_t n_heads,
                                              int64_t head_dim, int64_t cols);

}  // namespace llm
