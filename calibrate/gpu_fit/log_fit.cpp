#include "calibrate/gpu_fit/log_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/sample_stats.h"

namespace llm {

std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                std::vector<double> x0, const std::vector<double>& step,
                                int max_iterations) {
  const size_t n = x0.size();
  std::vector<std::vector<double>> pts(n + 1, x0);
  for (size_t i = 0; i < n; ++i) pts[i + 1][i] += step[i];
  std::vector<double> vals(n + 1);
  for (size_t i = 0; i <= n; ++i) vals[i] = f(pts[i]);
  std::vector<size_t> order(n + 1);
  for (int it = 0; it < max_iterations; ++it) {
    for (size_t i = 0; i <= n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return vals[a] < vals[b]; });
    std::vector<std::vector<double>> p2(n + 1);
    std::vector<double> v2(n + 1);
    for (size_t i = 0; i <= n; ++i) {
      p2[i] = pts[order[i]];
      v2[i] = vals[order[i]];
    }
    pts.swap(p2);
    vals.swap(v2);
    if (std::fabs(vals[n] - vals[0]) <= 1e-12 * (std::fabs(vals[0]) + 1e-30)) break;
    std::vector<double> c(n, 0.0);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) c[j] += pts[i][j] / static_cast<double>(n);
    }
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (size_t j = 0; j < n; ++j) x[j] = c[j] + t * (pts[n][j] - c[j]);
      return x;
    };
    const std::vector<double> xr = along(-1.0);
    const double fr = f(xr);
    if (fr < vals[0]) {
      const std::vector<double> xe = along(-2.0);
      const double fe = f(xe);
      if (fe < fr) {
        pts[n] = xe;
        vals[n] = fe;
      } else {
        pts[n] = xr;
        vals[n] = fr;
      }
    } else if (fr < vals[n - 1]) {
      pts[n] = xr;
      vals[n] = fr;
    } else {
      const std::vector<double> xc = along(0.5);
      const double fc = f(xc);
      if (fc < vals[n]) {
        pts[n] = xc;
        vals[n] = fc;
      } else {
        for (size_t i = 1; i <= n; ++i) {
          for (size_t j = 0; j < n; ++j) pts[i][j] = pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]);
          vals[i] = f(pts[i]);
        }
      }
    }
  }
  size_t best = 0;
  for (size_t i = 1; i <= n; ++i) {
    if (vals[i] < vals[best]) best = i;
  }
  return pts[best];
}

LogFitResult fit_log_least_squares(
    const std::function<double(const std::vector<double>&, size_t)>& predict,
    const std::vector<double>& measured, const std::vector<double>& x0, bool trim,
    const std::vector<double>& weights) {
  const size_t n = measured.size();
  LogFitResult r;
  r.kept.assign(n, true);
  std::vector<double> logx(x0.size());
  for (size_t j = 0; j < x0.size(); ++j) logx[j] = std::log(x0[j]);
  auto params_of = [](const std::vector<double>& lx) {
    std::vector<double> x(lx.size());
    for (size_t j = 0; j < lx.size(); ++j) x[j] = std::exp(lx[j]);
    return x;
  };
  const int rounds = trim ? 3 : 1;
  for (int round = 0; round < rounds; ++round) {
    auto loss = [&](const std::vector<double>& lx) {
      const std::vector<double> x = params_of(lx);
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        if (!r.kept[i]) continue;
        const double p = predict(x, i);
        if (!(p > 0) || !std::isfinite(p)) return std::numeric_limits<double>::max();
        const double e = std::log(p / measured[i]);
        sum += (weights.empty() ? 1.0 : weights[i]) * e * e;
      }
      return sum;
    };
    // Three restarts from the best point, each with a fresh simplex of log-steps 0.5.
    for (int restart = 0; restart < 3; ++restart) {
      logx = nelder_mead(loss, logx, std::vector<double>(logx.size(), restart == 0 ? 0.7 : 0.2));
    }
    const std::vector<double> x = params_of(logx);
    std::vector<double> abs_log(n);
    for (size_t i = 0; i < n; ++i) abs_log[i] = std::fabs(std::log(predict(x, i) / measured[i]));
    if (!trim || round + 1 == rounds) break;
    std::vector<double> kept_abs;
    for (size_t i = 0; i < n; ++i) kept_abs.push_back(abs_log[i]);
    std::nth_element(kept_abs.begin(), kept_abs.begin() + static_cast<long>(n / 2), kept_abs.end());
    const double limit = std::max(4.0 * kept_abs[n / 2], 0.1);
    for (size_t i = 0; i < n; ++i) r.kept[i] = abs_log[i] <= limit;
  }
  r.params = params_of(logx);
  r.errors.resize(n);
  for (size_t i = 0; i < n; ++i) r.errors[i] = predict(r.params, i) / measured[i] - 1.0;
  return r;
}

ErrorSummary summarize_errors(const std::vector<double>& errors, const std::vector<bool>* kept) {
  std::vector<double> a, s;
  for (size_t i = 0; i < errors.size(); ++i) {
    if (kept && !(*kept)[i]) continue;
    a.push_back(std::fabs(errors[i]));
    s.push_back(errors[i]);
  }
  ErrorSummary out;
  out.samples = a.size();
  if (a.empty()) return out;
  std::sort(a.begin(), a.end());
  std::sort(s.begin(), s.end());
  out.median = sorted_quantile(a, 0.5);
  out.p90 = sorted_quantile(a, 0.9);
  out.max = a.back();
  out.signed_median = sorted_quantile(s, 0.5);
  return out;
}

}  // namespace llm
