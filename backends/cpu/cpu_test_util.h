// Test helpers for the CPU backend's tests (header-only, used by backends/cpu/*_test.cpp only):
// tiny model configs, a naive double-precision decoder over contiguous K/V written independently of
// the backend's kernels, and a way to run one token sequence straight through a CpuBackend with a
// hand-made block table and prefill chunking.
// Thread-safety: none; test code.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/model/model_weights.h"

namespace llm::cpu_testing {

// Llama with grouped-query attention, untied, K = 100 in down_proj (not a multiple of 8).
inline ModelConfig tiny_llama() {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 300;
  c.hidden_size = 64;
  c.intermediate_size = 100;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.head_dim = 16;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 256;
  return c;
}

// Qwen2-like: QKV bias, tied embeddings, odd shapes (hidden 72, head_dim 24, one KV head).
inline ModelConfig tiny_qwen2() {
  ModelConfig c;
  c.architecture = "qwen2";
  c.vocab_size = 260;
  c.hidden_size = 72;
  c.intermediate_size = 90;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 3;
  c.num_key_value_heads = 1;
  c.head_dim = 24;
  c.rms_norm_eps = 1e-6;
  c.rope_theta = 1000000.0;
  c.tie_word_embeddings = true;
  c.attention_bias = true;
  c.max_position_embeddings = 256;
  return c;
}

// Llama 3.1-style RoPE scaling with a short original context so all three bands occur.
inline ModelConfig tiny_llama3_scaled() {
  ModelConfig c = tiny_llama();
  c.rope_theta = 500000.0;
  c.rope_scaling.type = RopeScaling::Type::kLlama3;
  c.rope_scaling.factor = 8.0;
  c.rope_scaling.low_freq_factor = 1.0;
  c.rope_scaling.high_freq_factor = 4.0;
  c.rope_scaling.original_max_position_embeddings = 64;
  return c;
}

inline std::vector<int32_t> prompt(uint64_t seed, int64_t n, int64_t vocab) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 12345;
  for (int32_t& x : t) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<int32_t>((s >> 33) % static_cast<uint64_t>(vocab));
  }
  return t;
}

// Naive decoder: logits (vocab values) at every position of `tokens`, in double.
inline std::vector<std::vector<double>> naive_logits(const ModelWeights& w,
                                                     const std::vector<int32_t>& tokens) {
  const ModelConfig& c = w.config;
  const int64_t H = c.hidden_size, D = c.head_dim, NH = c.num_attention_heads,
                NKV = c.num_key_value_heads, F = c.intermediate_size, V = c.vocab_size;
  const int64_t T = static_cast<int64_t>(tokens.size());
  auto linear = [](const std::vector<float>& W, const std::vector<float>& b,
                   const std::vector<double>& in, int64_t out_n) {
    const int64_t in_n = static_cast<int64_t>(in.size());
    std::vector<double> out(static_cast<size_t>(out_n));
    for (int64_t o = 0; o < out_n; ++o) {
      double s = b.empty() ? 0.0 : b[static_cast<size_t>(o)];
      for (int64_t i = 0; i < in_n; ++i)
        s += double(W[static_cast<size_t>(o * in_n + i)]) * in[static_cast<size_t>(i)];
      out[static_cast<size_t>(o)] = s;
    }
    return out;
  };
  auto norm = [&](const std::vector<double>& in, const std::vector<float>& g) {
    double ss = 0;
    for (double v : in) ss += v * v;
    const double r = 1.0 / std::sqrt(ss / double(in.size()) + c.rms_norm_eps);
    std::vector<double> out(in.size());
    for (size_t i = 0; i < in.size(); ++i) out[i] = in[i] * r * g[i];
    return out;
  };
  // Frequencies, written out from the Hugging Face formulas.
  std::vector<double> freq(static_cast<size_t>(D / 2));
  for (int64_t i = 0; i < D / 2; ++i) {
    double f = std::pow(c.rope_theta, -double(2 * i) / double(D));
    const RopeScaling& s = c.rope_scaling;
    if (s.type == RopeScaling::Type::kLinear) f /= s.factor;
    if (s.type == RopeScaling::Type::kLlama3) {
      const double wl = 2 * std::numbers::pi / f, L = double(s.original_max_position_embeddings);
      if (wl > L / s.low_freq_factor) {
        f /= s.factor;
      } else if (wl >= L / s.high_freq_factor) {
        const double a = (L / wl - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        f = (1 - a) * f / s.factor + a * f;
      }
    }
    freq[static_cast<size_t>(i)] = f;
  }
  auto rope = [&](std::vector<double>& v, int64_t heads, int64_t pos) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < D / 2; ++i) {
        const double a = double(pos) * freq[static_cast<size_t>(i)];
        double& x1 = v[static_cast<size_t>(h * D + i)];
        double& x2 = v[static_cast<size_t>(h * D + i + D / 2)];
        const double y1 = x1 * std::cos(a) - x2 * std::sin(a),
                     y2 = x2 * std::cos(a) + x1 * std::sin(a);
        x1 = y1;
        x2 = y2;
      }
    }
  };
  std::vector<std::vector<double>> x(static_cast<size_t>(T),
                                     std::vector<double>(static_cast<size_t>(H)));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < H; ++i)
      x[t][i] = w.tok_embeddings[static_cast<size_t>(tokens[t] * H + i)];
  }
  for (const LayerWeights& L : w.layers) {
    std::vector<std::vector<double>> K(T), Vv(T), Q(T);
    for (int64_t t = 0; t < T; ++t) {
      const auto n = norm(x[t], L.attn_norm);
      Q[t] = linear(L.q_proj, L.q_bias, n, NH * D);
      K[t] = linear(L.k_proj, L.k_bias, n, NKV * D);
      Vv[t] = linear(L.v_proj, L.v_bias, n, NKV * D);
      rope(Q[t], NH, t);
      rope(K[t], NKV, t);
    }
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> att(static_cast<size_t>(NH * D), 0.0);
      for (int64_t h = 0; h < NH; ++h) {
        const int64_t g = h / (NH / NKV);
        std::vector<double> s(static_cast<size_t>(t + 1));
        double mx = -1e300;
        for (int64_t j = 0; j <= t; ++j) {
          double d = 0;
          for (int64_t i = 0; i < D; ++i) d += Q[t][h * D + i] * K[j][g * D + i];
          s[j] = d / std::sqrt(double(D));
          mx = std::max(mx, s[j]);
        }
        double z = 0;
        for (double& e : s) z += (e = std::exp(e - mx));
        for (int64_t j = 0; j <= t; ++j) {
          for (int64_t i = 0; i < D; ++i) att[h * D + i] += s[j] / z * Vv[j][g * D + i];
        }
      }
      const auto o = linear(L.o_proj, {}, att, H);
      for (int64_t i = 0; i < H; ++i) x[t][i] += o[i];
      const auto n = norm(x[t], L.ffn_norm);
      const auto gt = linear(L.gate_proj, {}, n, F);
      const auto up = linear(L.up_proj, {}, n, F);
      std::vector<double> a(static_cast<size_t>(F));
      for (int64_t i = 0; i < F; ++i) a[i] = gt[i] / (1 + std::exp(-gt[i])) * up[i];
      const auto d = linear(L.down_proj, {}, a, H);
      for (int64_t i = 0; i < H; ++i) x[t][i] += d[i];
    }
  }
  std::vector<std::vector<double>> out;
  for (int64_t t = 0; t < T; ++t)
    out.push_back(linear(w.output_matrix(), {}, norm(x[t], w.final_norm), V));
  return out;
}

// Drives a CpuBackend directly. The backend must have been built with options from
// options_recording(&sink): every sampling step appends its logits to sink.
inline CpuBackendOptions options_recording(std::vector<std::vector<float>>* sink,
                                           int64_t num_blocks, int32_t block_size,
                                           int threads = 0) {
  CpuBackendOptions o;
  o.num_blocks = num_blocks;
  o.block_size = block_size;
  o.threads = threads;
  o.on_logits = [sink](const Request&, std::span<const float> l) {
    sink->emplace_back(l.begin(), l.end());
  };
  return o;
}

// Runs `tokens` as one request's prompt with block table `blocks`: prefill chunks of `chunk`
// tokens (the last chunk samples), then one step per remaining position when `every_position`
// (each step computes position p alone and samples, giving logits at every position from
// first_sampled on). Returns the number of sampling steps.
inline int run_direct(CpuBackend& backend, const std::vector<int32_t>& tokens,
                      const std::vector<int32_t>& blocks, int64_t chunk, int64_t prefill_len) {
  Request r;
  r.external_id = "direct";
  r.prompt_tokens = tokens;
  r.prompt_len = static_cast<int64_t>(tokens.size());
  r.params.temperature = 0;
  r.block_ids = blocks;
  std::vector<int32_t> sampled;
  int steps = 0;
  int64_t done = 0;
  const int64_t T = static_cast<int64_t>(tokens.size());
  while (done < T) {
    SchedulerOutput out;
    const int64_t n = done < prefill_len ? std::min(chunk, prefill_len - done) : 1;
    ScheduledSeq s;
    s.request = &r;
    s.num_computed_before = done;
    s.num_new_tokens = n;
    s.samples = done + n >= prefill_len;
    out.seqs.push_back(s);
    backend.execute(out, sampled);
    steps += s.samples ? 1 : 0;
    done += n;
  }
  return steps;
}

}  // namespace llm::cpu_testing
