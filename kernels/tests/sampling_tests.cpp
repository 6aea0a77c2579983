// GPU sampling against reference::ref_sample, token for token: the same logits give the same
// token (the order key and the uniform number are exact), and a repeated draw (a recomputed
// request) gives the same tokens again.
#include <string>

#include "kernels/sampling.h"
#include "kernels/tests/kernel_test_util.h"

namespace llm::kernels::testing {
namespace {

using reference::ref_sample;

void sampling_vocab(Report& report, int32_t vocab) {
  TestRng rng(500 + vocab);
  std::vector<SamplingRow> params;
  const double temps[] = {0.0, 0.7, 1.0, 1.3};
  const int32_t top_ks[] = {0, 1, 50, vocab};
  const double top_ps[] = {1.0, 0.9, 0.3, 1e-3};
  for (double t : temps) {
    for (int32_t k : top_ks) {
      for (double p : top_ps) {
        params.push_back({t, p, k, rng.next(), uint64_t(rng.below(1000))});
      }
    }
  }
  const int32_t rows = int32_t(params.size());
  std::vector<float> logits(size_t(rows) * vocab);
  for (int32_t r = 0; r < rows; ++r) {
    // A peaked head over a flat tail, with exact ties in the head (lower id must win).
    for (int32_t i = 0; i < vocab; ++i) logits[size_t(r) * vocab + i] = rng.uniform(-4, 4);
    for (int32_t j = 0; j < 8; ++j) {
      logits[size_t(r) * vocab + rng.below(vocab)] = 9.0f + float(j % 3);
    }
  }
  DeviceBuffer<float> d_logits(logits);
  DeviceBuffer<SamplingRow> d_params(params);
  DeviceBuffer<double> d_ws(size_t(rows) * vocab);
  DeviceBuffer<int32_t> d_tokens(static_cast<size_t>(rows));
  KT_CUDA(sample_tokens(d_logits.get(), d_params.get(), rows, vocab, d_ws.get(), d_tokens.get(),
                        nullptr));
  const std::vector<int32_t> first = d_tokens.download();
  KT_CUDA(sample_tokens(d_logits.get(), d_params.get(), rows, vocab, d_ws.get(), d_tokens.get(),
                        nullptr));
  const std::vector<int32_t> again = d_tokens.download();
  int mismatches = 0;
  std::string detail;
  for (int32_t r = 0; r < rows; ++r) {
    const SamplingRow& p = params[size_t(r)];
    const std::vector<float> row(logits.begin() + size_t(r) * vocab,
                                 logits.begin() + size_t(r + 1) * vocab);
    const int32_t want = ref_sample(row, {p.temperature, p.top_p, p.top_k, p.seed, p.counter});
    if (want != first[size_t(r)]) {
      if (mismatches++ < 3) {
        detail += "row " + std::to_string(r) + ": gpu " + std::to_string(first[size_t(r)]) +
                  " cpu " + std::to_string(want) + "; ";
      }
    }
  }
  report.expect("sample_tokens == reference, vocab " + std::to_string(vocab) + " (" +
                    std::to_string(rows) + " rows)",
                mismatches == 0, detail);
  report.expect("sample_tokens repeats its draws, vocab " + std::to_string(vocab), first == again);
}

}  // namespace

void run_sampling_tests(Report& report) {
  sampling_vocab(report, 1000);
  sampling_vocab(report, 128256);
}

}  // namespace llm::kernels::testing
