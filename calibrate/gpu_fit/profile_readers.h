// Readers of the published operator profiles in ../shared/gpu-truth (its README names each
// source): each row becomes an OpSample of the card it was measured on. Paths are relative to
// the gpu-truth root. Every reader throws std::invalid_argument naming the file (and line) of
// what it cannot read.
// Thread-safety: plain functions; they read files and share nothing.
#pragma once

#include <string>
#include <vector>

#include "backends/sim/model_shape.h"
#include "calibrate/gpu_fit/op_samples.h"

namespace llm {

// One tensor-parallel rank's share of a layer, as the kernels see it.
struct RankShape {
  double hidden = 0;
  double heads = 0;     // query heads per rank
  double kv_heads = 0;  // KV heads per rank (at least 1)
  double head_dim = 0;
  double qkv = 0;  // parameters of the QKV projection per rank
  double attn_out = 0;
  double gate_up = 0;  // dense MLP, per rank
  double down = 0;
  double kv_bytes_per_token = 0;  // one layer's K and V of one token, 16-bit
  double vocab = 0;               // LM-head rows per rank
};
RankShape rank_shape(const ModelShape& m, int64_t tp);

// blis/kernel-profiles/*.yaml (H100, vLLM 0.14): per layer GEMMs against tokens, decode and
// prefill attention tables, all-reduce, MoE experts and the LM head. One sample set per distinct
// (model, tp): the files of the same model and tp repeat the same tables.
std::vector<OpSample> read_blis_kernel_profiles(const std::string& truth_root);

// op-profiles/llmservingsim/<CARD>/<model>/<variant>/tp<N>/ (vLLM 0.19): dense.csv (each
// projection, activation, norms, rotary against tokens), attention.csv (a prefill chunk with
// its cached prefix beside n decodes of one context), per_sequence.csv (LM head), moe.csv
// (experts against tokens and experts touched). TP-N folders are one GPU running an Nth of the
// model. `card` is the preset name of the folder's hardware.
std::vector<OpSample> read_llmservingsim_profiles(const std::string& truth_root,
                                                  const std::string& folder,
                                                  const std::string& card);
// The sampler's time against sequences from the same folders' per_sequence.csv: pairs of
// (sequences, ns).
std::vector<std::pair<double, double>> read_llmservingsim_sampler(const std::string& truth_root,
                                                                  const std::string& folder);

// The fixed cost of one layer's small kernels on the card: two fused add-and-norms, rotary and the
// activation at one token, from the Llama-3.1-8B TP1 dense.csv of op-profiles/llmservingsim/FOLDER.
double read_llmservingsim_small_kernels_ns(const std::string& truth_root,
                                           const std::string& folder);

// op-profiles/h100-llama-3.1-70b-tp4/.../layers.csv: the projections of Llama-3.1-70B at TP4 on
// an H100 against tokens (PyTorch eager; only the GEMMs are read).
std::vector<OpSample> read_h100_70b_layers(const std::string& truth_root);

// op-profiles/vidur/: H100 Llama-2-7B operators against tokens (mlp.csv: projections,
// activation, norms, rotary, residual add) and H100 DGX all-reduce times (all_reduce.csv).
std::vector<OpSample> read_vidur_profiles(const std::string& truth_root);

}  // namespace llm
