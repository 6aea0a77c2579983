#include "kernels/reference/kernel_reference.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace llm::kernels::reference {

uint16_t to_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  if (std::isnan(x)) return static_cast<uint16_t>((u >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>((u + rounding) >> 16);
}

float from_bf16(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

float from_fp8_e4m3(uint8_t code) {
  const int sign = code >> 7, exp = (code >> 3) & 0xf, man = code & 0x7;
  float v = 0;
  if (exp == 0xf && man == 0x7) {
    v = std::numeric_limits<float>::quiet_NaN();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<float>(man) / 8.0f, -6);
  } else {
    v = std::ldexp(1.0f + static_cast<float>(man) / 8.0f, exp - 7);
  }
  return sign ? -v : v;
}

uint8_t to_fp8_e4m3(float x) {
  // The nearest of the 127 finite non-negative codes (ties to the even code), then the sign.
  const float a = std::min(std::fabs(x), 448.0f);
  uint8_t best = 0;
  float best_err = std::numeric_limits<float>::infinity();
  for (int c = 0; c < 0x7f; ++c) {
    const float err = std::fabs(from_fp8_e4m3(static_cast<uint8_t>(c)) - a);
    if (err < best_err || (err == best_err && (c & 1) == 0)) {
      best = static_cast<uint8_t>(c);
      best_err = err;
    }
  }
  return static_cast<uint8_t>(best | (std::signbit(x) && best != 0 ? 0x80 : 0));
}

void ref_rms_norm(const float* x, const float* w, int64_t n, double eps, float* out) {
  float sum_sq = 0;
  for (int64_t i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + static_cast<float>(eps));
  for (int64_t i = 0; i < n; ++i) out[i] = w[i] * (x[i] * inv);
}

void ref_silu_mul(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void ref_rope(float* head, int64_t head_dim, const std::vector<double>& inv_freq, int64_t pos,
              bool interleaved) {
  const int64_t half = head_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const double a = static_cast<double>(pos) * inv_freq[static_cast<size_t>(i)];
    const float c = static_cast<float>(std::cos(a)), s = static_cast<float>(std::sin(a));
    const int64_t ia = interleaved ? 2 * i : i, ib = interleaved ? 2 * i + 1 : i + half;
    const float x1 = head[ia], x2 = head[ib];
    head[ia] = x1 * c - x2 * s;
    head[ib] = x2 * c + x1 * s;
  }
}

void ref_attention(const float* q, const RefKv& kv, int64_t d, int64_t pos, float scale,
                   float* out) {
  const int64_t n = pos + 1;
  std::vector<float> scores(static_cast<size_t>(n));
  float max_score = -INFINITY;
  for (int64_t j = 0; j < n; ++j) {
    float s = 0;
    for (int64_t i = 0; i < d; ++i) s += q[i] * kv.k[static_cast<size_t>(j * d + i)];
    scores[static_cast<size_t>(j)] = s * scale;
    max_score = std::max(max_score, s * scale);
  }
  float sum = 0;
  for (float& s : scores) {
    s = std::exp(s - max_score);
    sum += s;
  }
  for (int64_t i = 0; i < d; ++i) out[i] = 0;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < d; ++i) {
      out[i] += scores[static_cast<size_t>(j)] * kv.v[static_cast<size_t>(j * d + i)];
    }
  }
  for (int64_t i = 0; i < d; ++i) out[i] /= sum;
}

uint64_t ref_mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double ref_uniform(uint64_t seed, uint64_t counter) {
  const uint64_t state = ref_mix64(seed ^ ref_mix64(counter));
  return static_cast<double>(ref_mix64(state) >> 11) * 0x1.0p-53;
}

int32_t ref_sample(const std::vector<float>& logits, const RefSampling& p) {
  const size_t n = logits.size();
  if (p.temperature < 1e-5) {
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
      if (logits[i] > logits[best]) best = i;
    }
    return static_cast<int32_t>(best);
  }
  struct Cand {
    int32_t id;
    double prob;
  };
  const double max_logit = *std::max_element(logits.begin(), logits.end());
  std::vector<Cand> d(n);
  for (size_t i = 0; i < n; ++i) {
    d[i] = {static_cast<int32_t>(i), std::exp((logits[i] - max_logit) / p.temperature)};
  }
  std::stable_sort(d.begin(), d.end(),
                   [](const Cand& a, const Cand& b) { return a.prob > b.prob; });
  if (p.top_k > 0 && static_cast<size_t>(p.top_k) < n) d.resize(static_cast<size_t>(p.top_k));
  double sum = 0;
  for (const Cand& c : d) sum += c.prob;
  for (Cand& c : d) c.prob /= sum;
  if (p.top_p < 1.0) {
    size_t keep = 0;
    double mass = 0;
    while (keep < d.size() && mass < p.top_p) mass += d[keep++].prob;
    d.resize(std::max<size_t>(keep, 1));
    sum = 0;
    for (const Cand& c : d) sum += c.prob;
    for (Cand& c : d) c.prob /= sum;
  }
  std::sort(d.begin(), d.end(), [](const Cand& a, const Cand& b) { return a.id < b.id; });
  const double u = ref_uniform(p.seed, p.counter);
  double cdf = 0;
  for (const Cand& c : d) {
    cdf += c.prob;
    if (u < cdf) return c.id;
  }
  return d.back().id;
}

}  // namespace llm::kernels::reference
