#include "calibrate/gpu_fit/card_fit.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "backends/sim/cost_model.h"

namespace llm {
namespace {

using Member = double GpuStepCoefficients::*;

struct Stage {
  const char* name;
  std::vector<Member> members;
  std::vector<const char*> names;
};

double step_terms_ns(const GpuStepCoefficients& c, const StageSample& s, int64_t decodes,
                     bool with_chunk) {
  BatchCost b;
  const int64_t context = std::llround(s.mean_context);
  for (int64_t i = 0; i < decodes; ++i) b.add(context, 1, true);
  if (with_chunk) {
    b.add(std::llround(s.prefill_chunk_context),
          std::max<int64_t>(2, std::llround(s.prefill_chunk_tokens)), false);
  }
  const GpuStepInputs in{&s.model, s.tensor_parallel_size, 2};
  return gpu_step_terms(c, in, b).total();
}

// Results grouped by the samples' group names, in name order.
std::vector<GroupResidual> by_group(const std::vector<std::string>& groups,
                                    const std::vector<double>& errors,
                                    const std::vector<bool>& kept) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<bool>>> split;
  for (size_t i = 0; i < groups.size(); ++i) {
    split[groups[i]].first.push_back(errors[i]);
    split[groups[i]].second.push_back(kept[i]);
  }
  std::vector<GroupResidual> out;
  for (const auto& [group, ek] : split)
    out.push_back({group, summarize_errors(ek.first, &ek.second)});
  return out;
}

StageResidual residual_of(const std::string& stage, const std::string& coefficients,
                          const std::vector<std::string>& groups, const LogFitResult& r) {
  StageResidual s;
  s.stage = stage;
  s.coefficients = coefficients;
  s.errors = summarize_errors(r.errors, &r.kept);
  s.trimmed = static_cast<size_t>(std::count(r.kept.begin(), r.kept.end(), false));
  s.groups = by_group(groups, r.errors, r.kept);
  return s;
}

// Fits `stage`'s members of `c` to the samples with `predict`; records the residuals.
template <typename Sample, typename Predict>
void fit_stage(GpuStepCoefficients& c, const Stage& stage, const std::vector<Sample>& samples,
               Predict predict, CardFit& out, bool trim = true) {
  if (samples.empty()) {
    out.unfitted.push_back(stage.name);
    return;
  }
  std::vector<double> measured, x0;
  std::vector<std::string> groups;
  for (const Sample& s : samples) {
    measured.push_back(s.measured_ns);
    groups.push_back(s.group);
  }
  for (Member m : stage.members) x0.push_back(std::max(c.*m, 1e-9));
  // Each origin weighs the same, and within it each group.
  std::map<std::string, std::map<std::string, double>> counts;
  for (const Sample& s : samples) counts[s.origin][s.group] += 1;
  std::vector<double> weights;
  for (const Sample& s : samples) {
    const auto& groups_of_origin = counts[s.origin];
    weights.push_back(
        1.0 / (static_cast<double>(groups_of_origin.size()) * groups_of_origin.at(s.group)));
  }
  const LogFitResult r = fit_log_least_squares(
      [&](const std::vector<double>& x, size_t i) {
        GpuStepCoefficients t = c;
        for (size_t j = 0; j < x.size(); ++j) t.*(stage.members[j]) = x[j];
        return predict(t, samples[i]);
      },
      measured, x0, trim, weights);
  for (size_t j = 0; j < r.params.size(); ++j) c.*(stage.members[j]) = r.params[j];
  std::string names;
  for (const char* n : stage.names) names += (names.empty() ? "" : ", ") + std::string(n);
  out.stages.push_back(residual_of(stage.name, names, groups, r));
}

std::vector<OpSample> of_kind(const std::vector<OpSample>& ops, OpKind kind) {
  std::vector<OpSample> out;
  for (const OpSample& s : ops) {
    if (s.kind == kind && !s.check_only) out.push_back(s);
  }
  return out;
}

bool has_cached_prefix(const std::vector<OpSample>& prefill) {
  for (const OpSample& s : prefill) {
    if (s.prefill_kv_bytes > 0) return true;
  }
  return false;
}

}  // namespace

double predict_stage_ns(const GpuStepCoefficients& c, const StageSample& s) {
  const double b = std::max(s.decode_sequences, 1.0);
  const int64_t lo = static_cast<int64_t>(std::floor(b));
  const double frac = b - static_cast<double>(lo);
  const double chunk = std::max(s.prefill_chunk_tokens, 1.0);
  const double with_chunk = std::min(1.0, s.prefill_tokens_per_step / chunk);
  auto at = [&](int64_t k) {
    const double plain = step_terms_ns(c, s, k, false);
    if (with_chunk <= 0) return plain;
    return (1.0 - with_chunk) * plain + with_chunk * step_terms_ns(c, s, k, true);
  };
  const double t_lo = at(lo);
  return frac > 0 ? t_lo + frac * (at(lo + 1) - t_lo) : t_lo;
}

CardFit fit_card(const GpuStepCoefficients& prior, const std::vector<OpSample>& ops,
                 const std::vector<StageSample>& runs,
                 const std::vector<std::pair<double, double>>& sampler, double per_layer_fixed_ns,
                 const GpuStepCoefficients* attention_reference) {
  using C = GpuStepCoefficients;
  CardFit out;
  GpuStepCoefficients& c = out.coefficients;
  c = prior;
  const auto op_price = [](const GpuStepCoefficients& t, const OpSample& s) {
    return predict_op_ns(t, s);
  };
  fit_stage(c,
            {"gemm",
             {&C::gemm_kernel_ns, &C::weight_bytes_per_s, &C::gemm_flops_bf16, &C::gemm_sharpness},
             {"gemm_kernel_ns", "weight_bytes_per_s", "gemm_flops_bf16", "gemm_sharpness"}},
            of_kind(ops, OpKind::kGemm), op_price, out);
  fit_stage(c,
            {"fp8 gemm",
             {&C::gemm_flops_fp8, &C::fp8_gemm_extra_ns},
             {"gemm_flops_fp8", "fp8_gemm_extra_ns"}},
            of_kind(ops, OpKind::kFp8Gemm), op_price, out);
  fit_stage(c, {"elementwise", {&C::elementwise_speed}, {"elementwise_speed"}},
            of_kind(ops, OpKind::kElementwise), op_price, out);
  fit_stage(c,
            {"decode attention",
             {&C::decode_kernel_ns, &C::decode_per_sequence_ns, &C::kv_bytes_per_s},
             {"decode_kernel_ns", "decode_per_sequence_ns", "kv_bytes_per_s"}},
            of_kind(ops, OpKind::kDecodeAttention), op_price, out);
  const std::vector<OpSample> prefill = of_kind(ops, OpKind::kPrefillAttention);
  if (has_cached_prefix(prefill)) {
    fit_stage(c,
              {"prefill attention",
               {&C::prefill_kernel_ns, &C::prefill_per_token_head_ns, &C::attention_flops,
                &C::prefill_kv_bytes_per_s},
               {"prefill_kernel_ns", "prefill_per_token_head_ns", "attention_flops",
                "prefill_kv_bytes_per_s"}},
              prefill, op_price, out);
  } else {
    fit_stage(c,
              {"prefill attention",
               {&C::prefill_kernel_ns, &C::prefill_per_token_head_ns, &C::attention_flops},
               {"prefill_kernel_ns", "prefill_per_token_head_ns", "attention_flops"}},
              prefill, op_price, out);
    if (attention_reference) {
      c.prefill_kv_bytes_per_s = c.kv_bytes_per_s * attention_reference->prefill_kv_bytes_per_s /
                                 attention_reference->kv_bytes_per_s;
    }
    out.unfitted.push_back("prefill cached-prefix read (ratio to the KV read rate transferred)");
  }
  const std::vector<OpSample> mixed = of_kind(ops, OpKind::kMixedAttention);
  if (!mixed.empty()) {
    // The prefill kernel that runs them reads a decode's KV once per query head: the profiled
    // decodes' extra time is the same for 8 and for 4 KV heads at 32 query heads per rank
    // (docs/cost-model.md, "Mixed steps").
    c.mixed_reads_per_query_head = 1;
    fit_stage(c,
              {"mixed attention",
               {&C::mixed_decode_per_sequence_ns, &C::mixed_kv_bytes_per_s},
               {"mixed_decode_per_sequence_ns", "mixed_kv_bytes_per_s"}},
              mixed, op_price, out);
  } else {
    // No measurement of decodes beside a chunk: they are priced as in the decode kernel. The
    // RTX PRO 6000's ratios (another vLLM, another attention kernel) are not transferred: under
    // them the H100's busiest run stages (80-110 sequences, a third of the steps mixed) were
    // priced 8-31% high, and with the rate free the run fit pushes it past the HBM's bandwidth
    // (docs/cost-model.md, "Mixed steps").
    c.mixed_kv_bytes_per_s = c.kv_bytes_per_s;
    c.mixed_decode_per_sequence_ns = c.decode_per_sequence_ns;
    c.mixed_reads_per_query_head = 0;
    out.unfitted.push_back("mixed attention (priced as the decode kernel)");
  }
  fit_stage(c,
            {"all-reduce",
             {&C::allreduce_ns, &C::allreduce_per_doubling_ns, &C::link_bytes_per_s},
             {"allreduce_ns", "allreduce_per_doubling_ns", "link_bytes_per_s"}},
            of_kind(ops, OpKind::kAllreduce), op_price, out);
  if (sampler.size() >= 2) {
    // Least-squares slope of the sampler's time against the sequences it samples.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : sampler) {
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    const double n = static_cast<double>(sampler.size());
    c.per_sample_ns = std::max(0.0, (n * sxy - sx * sy) / (n * sxx - sx * sx));
  } else {
    out.unfitted.push_back("sampler");
  }
  const auto run_price = [](const GpuStepCoefficients& t, const StageSample& s) {
    return predict_stage_ns(t, s);
  };
  if (per_layer_fixed_ns >= 0) {
    c.per_layer_ns = per_layer_fixed_ns;
    fit_stage(c, {"runs", {&C::step_ns, &C::per_sequence_ns}, {"step_ns", "per_sequence_ns"}}, runs,
              run_price, out, false);
  } else {
    fit_stage(c,
              {"runs",
               {&C::step_ns, &C::per_layer_ns, &C::per_sequence_ns},
               {"step_ns", "per_layer_ns", "per_sequence_ns"}},
              runs, run_price, out, false);
  }
  // Samples reported beside the fit.
  std::map<std::string, std::vector<OpSample>> checks;
  for (const OpSample& s : ops) {
    if (s.check_only) checks[s.origin].push_back(s);
  }
  for (const auto& [origin, samples] : checks) {
    fit_stage(c, {"check only", {}, {}}, samples, op_price, out, false);
    out.stages.back().stage = "check: " + origin;
  }
  return out;
}

}  // namespace llm
