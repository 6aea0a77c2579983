#include "sim/recorded/run_figures.h"

#include <numeric>

#include "core/sample_stats.h"

namespace llm {
namespace {

double mean_of_values(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

RunFigures figures_of_samples(std::vector<double> ttft, std::vector<double> e2e,
                              std::vector<double> tpot) {
  RunFigures f;
  if (!ttft.empty()) {
    f.ttft_mean = mean_of_values(ttft);
    f.ttft_p50 = quantile(ttft, 0.5);
    f.ttft_p90 = quantile(ttft, 0.9);
    f.ttft_p99 = quantile(ttft, 0.99);
  }
  if (!e2e.empty()) {
    f.e2e_mean = mean_of_values(e2e);
    f.e2e_p50 = quantile(e2e, 0.5);
    f.e2e_p90 = quantile(e2e, 0.9);
    f.e2e_p99 = quantile(e2e, 0.99);
  }
  if (!tpot.empty()) {
    f.tpot_mean = mean_of_values(tpot);
    f.tpot_p50 = quantile(tpot, 0.5);
    f.tpot_p90 = quantile(tpot, 0.9);
  }
  return f;
}

}  // namespace llm
