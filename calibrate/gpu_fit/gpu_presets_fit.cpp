#include "calibrate/gpu_fit/gpu_presets_fit.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/gpu_fit/card_fit.h"
#include "calibrate/gpu_fit/kv_memory_fit.h"
#include "calibrate/gpu_fit/profile_readers.h"
#include "calibrate/gpu_fit/run_stages.h"

namespace llm {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr const char* kFitCommand =
    "llmsim calibrate --runs ../shared/gpu-truth --out-dir backends/sim/gpus";

// Datasheets: memory as the driver reports it (nvidia-smi, MiB); bandwidth, dense (non-sparse)
// tensor peaks with FP32 accumulate, one-way GPU link per GPU: NVIDIA's datasheets
// (/work/shared/spec/cost-model.md for the data-centre parts).
GpuDatasheet datasheet(double memory_mib, double hbm, double bf16, double fp8, double link,
                       const char* link_name) {
  return {memory_mib * kMiB, hbm, bf16, fp8, link, link_name};
}

struct Card {
  const char* name;
  std::vector<std::string> aliases;
  GpuDatasheet sheet;
};

const Card kH100{"H100-SXM",
                 {"H100", "H100-80GB", "H100-SXM5"},
                 datasheet(81559, 3.35e12, 989e12, 1979e12, 450e9, "NVLink 4")};
const Card kH200{
    "H200", {"H200-SXM"}, datasheet(143771, 4.8e12, 989e12, 1979e12, 450e9, "NVLink 4")};
const Card kH100Pcie{"H100-PCIe", {}, datasheet(81559, 2.0e12, 756e12, 1513e12, 64e9, "PCIe 5")};
const Card kB200{"B200", {}, datasheet(183359, 7.7e12, 2250e12, 4500e12, 900e9, "NVLink 5")};
const Card kA100{"A100-80GB",
                 {"A100", "A100-SXM-80GB"},
                 datasheet(81920, 2.039e12, 312e12, 0, 300e9, "NVLink 3")};
const Card kA100Small{
    "A100-40GB", {"A100-SXM-40GB"}, datasheet(40960, 1.555e12, 312e12, 0, 300e9, "NVLink 3")};
const Card kL40S{"L40S", {}, datasheet(46068, 0.864e12, 362e12, 733e12, 32e9, "PCIe 4")};
const Card kRtxPro{"RTX-PRO-6000",
                   {"RTXPRO6000", "RTX-PRO-6000-Blackwell"},
                   datasheet(97887, 1.792e12, 503.8e12, 1007.6e12, 64e9, "PCIe 5")};
const Card kRtx4090{
    "RTX-4090", {"RTX4090"}, datasheet(24564, 1.008e12, 165.2e12, 330.3e12, 32e9, "PCIe 4")};

bool pcie(const GpuDatasheet& d) { return d.link.rfind("PCIe", 0) == 0; }

// Starting values of a fit, and the values of a stage without samples: datasheet rates at
// typical achieved fractions, kernel costs of a few microseconds.
GpuStepCoefficients prior_of(const GpuDatasheet& d) {
  GpuStepCoefficients c;
  c.step_ns = 100e3;
  c.per_sequence_ns = 1e3;
  c.per_sample_ns = 0;
  c.per_layer_ns = 20e3;
  c.gemm_kernel_ns = 3e3;
  c.weight_bytes_per_s = 0.85 * d.hbm_bytes_per_s;
  c.gemm_flops_bf16 = 0.8 * d.bf16_flops;
  c.gemm_flops_fp8 = 0.8 * d.fp8_flops;
  c.fp8_gemm_extra_ns = 2e3;
  c.gemm_sharpness = 4;
  c.kv_bytes_per_s = 0.9 * d.hbm_bytes_per_s;
  c.decode_kernel_ns = 10e3;
  c.decode_per_sequence_ns = 100;
  c.prefill_kernel_ns = 10e3;
  c.prefill_per_token_head_ns = 0.5;
  c.attention_flops = 0.5 * d.bf16_flops;
  c.prefill_kv_bytes_per_s = 0.2 * d.hbm_bytes_per_s;
  c.mixed_decode_per_sequence_ns = 1e3;
  c.mixed_kv_bytes_per_s = 0.5 * d.hbm_bytes_per_s;
  c.elementwise_speed = 1;
  c.allreduce_ns = pcie(d) ? 25e3 : 5e3;
  c.allreduce_per_doubling_ns = pcie(d) ? 10e3 : 1e3;
  c.link_bytes_per_s = (pcie(d) ? 0.7 : 0.8) * d.link_bytes_per_s;
  return c;
}

std::vector<OpSample> concat(std::vector<OpSample> a, const std::vector<OpSample>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * f);
  return buf;
}

void log_fit(std::ostream& log, const std::string& card, const CardFit& fit) {
  log << "== " << card << "\n";
  for (const StageResidual& s : fit.stages) {
    log << "  " << s.stage << " (" << (s.coefficients.empty() ? "check" : s.coefficients)
        << "): " << s.errors.samples << " samples";
    if (s.trimmed) log << " (+" << s.trimmed << " trimmed)";
    log << ", |error| median " << percent(s.errors.median) << ", p90 " << percent(s.errors.p90)
        << ", max " << percent(s.errors.max) << ", signed median "
        << percent(s.errors.signed_median) << "\n";
    for (const GroupResidual& g : s.groups) {
      log << "      " << g.group << ": " << g.errors.samples << ", median "
          << percent(g.errors.median) << ", signed " << percent(g.errors.signed_median) << ", max "
          << percent(g.errors.max) << "\n";
    }
  }
  for (const std::string& u : fit.unfitted) log << "  " << u << ": no samples, prior kept\n";
}

std::vector<PresetResidual> residuals_of(const CardFit& fit) {
  std::vector<PresetResidual> out;
  for (const StageResidual& s : fit.stages) {
    PresetResidual r;
    r.stage = s.stage;
    r.coefficients = s.coefficients;
    r.samples = static_cast<int64_t>(s.errors.samples);
    r.trimmed = static_cast<int64_t>(s.trimmed);
    r.median_abs_error = s.errors.median;
    r.p90_abs_error = s.errors.p90;
    r.max_abs_error = s.errors.max;
    r.median_error = s.errors.signed_median;
    out.push_back(r);
  }
  return out;
}

GpuPreset preset_of(const Card& card, const GpuStepCoefficients& step,
                    const GpuMemoryCoefficients& memory) {
  GpuPreset p;
  p.profile.name = card.name;
  p.profile.datasheet = card.sheet;
  p.profile.step = step;
  p.profile.memory = memory;
  p.aliases = card.aliases;
  p.provenance.fit = std::string(kFitCommand) +
                     " (calibrate/gpu_fit: staged Nelder-Mead on log time ratios, outliers "
                     "beyond 4x the median trimmed)";
  return p;
}

// A card derived from a measured one: the rates that follow its memory scaled by the bandwidth
// ratio, those that follow its tensor cores by the peak ratio; kernel, layer and host costs kept.
GpuStepCoefficients scaled(const GpuStepCoefficients& from, const GpuDatasheet& a,
                           const GpuDatasheet& b) {
  GpuStepCoefficients c = from;
  const double bw = b.hbm_bytes_per_s / a.hbm_bytes_per_s;
  const double flops = b.bf16_flops / a.bf16_flops;
  c.weight_bytes_per_s *= bw;
  c.kv_bytes_per_s *= bw;
  c.prefill_kv_bytes_per_s *= bw;
  c.mixed_kv_bytes_per_s *= bw;
  c.gemm_flops_bf16 *= flops;
  c.attention_flops *= flops;
  // FP8: the measured card's FP8 efficiency at the new peak; none on the new card means vLLM's
  // weight-only FP8 (Marlin), at the bf16 rate.
  c.gemm_flops_fp8 =
      b.fp8_flops > 0 && a.fp8_flops > 0 ? from.gemm_flops_fp8 * b.fp8_flops / a.fp8_flops : 0;
  if (b.fp8_flops <= 0) c.fp8_gemm_extra_ns = 0;
  if (pcie(a) != pcie(b)) {
    const GpuStepCoefficients link = prior_of(b);
    c.allreduce_ns = link.allreduce_ns;
    c.allreduce_per_doubling_ns = link.allreduce_per_doubling_ns;
    c.link_bytes_per_s = link.link_bytes_per_s;
  } else {
    c.link_bytes_per_s *= b.link_bytes_per_s / a.link_bytes_per_s;
  }
  return c;
}

// The A100's weight and KV streaming rates relative to the datasheet scaling from H100: one
// factor fitted to Splitwise's TP2 decode steps of Llama-2-70B. Splitwise's engine adds its own
// per-step cost, taken as what its H100 steps cost beyond this model's H100 price, row by row.
void fit_a100_streaming(GpuPreset& a100, const GpuStepCoefficients& h100, const std::string& root,
                        std::ostream& log) {
  const std::vector<StageSample> on_h100 = read_splitwise_decodes(root, "h100-80gb");
  const std::vector<StageSample> on_a100 = read_splitwise_decodes(root, "a100-80gb");
  std::vector<double> overhead, measured;
  std::vector<const StageSample*> rows;
  for (const StageSample& a : on_a100) {
    if (a.tensor_parallel_size != 2) continue;
    for (const StageSample& h : on_h100) {
      if (h.tensor_parallel_size == 2 && h.decode_sequences == a.decode_sequences &&
          h.mean_context == a.mean_context) {
        overhead.push_back(h.measured_ns - predict_stage_ns(h100, h));
        measured.push_back(a.measured_ns);
        rows.push_back(&a);
      }
    }
  }
  if (rows.empty()) throw std::invalid_argument("splitwise: no TP2 Llama-2-70B rows on both cards");
  auto scaled_by = [&](double factor) {
    GpuStepCoefficients c = a100.profile.step;
    c.weight_bytes_per_s *= factor;
    c.kv_bytes_per_s *= factor;
    c.prefill_kv_bytes_per_s *= factor;
    c.mixed_kv_bytes_per_s *= factor;
    return c;
  };
  const LogFitResult r = fit_log_least_squares(
      [&](const std::vector<double>& x, size_t i) {
        return overhead[i] + predict_stage_ns(scaled_by(x[0]), *rows[i]);
      },
      measured, {1.0}, false);
  a100.profile.step = scaled_by(r.params[0]);
  const ErrorSummary e = summarize_errors(r.errors);
  log << "== A100-80GB\n  streaming factor " << r.params[0] << " (weights at "
      << a100.profile.step.weight_bytes_per_s / a100.profile.datasheet.hbm_bytes_per_s * 100
      << "% of the datasheet) from " << rows.size() << " Splitwise TP2 decodes, |error| median "
      << percent(e.median) << ", max " << percent(e.max) << "\n";
  a100.provenance.residuals.push_back({"splitwise TP2 decode (A100 streaming factor)",
                                       "weight_bytes_per_s, kv_bytes_per_s (one factor)",
                                       static_cast<int64_t>(e.samples), 0, e.median, e.p90, e.max,
                                       e.signed_median});
  a100.provenance.sources.push_back("op-profiles/splitwise/perf_model.csv");
}

// The models left out of the fit (--hold-out), matched without case inside the samples' model
// names; remembers which names matched something, so that a name matching nothing is refused.
struct HeldOut {
  std::vector<std::string> given;  // as the command line spells them
  std::vector<std::string> names;  // the same in lower case
  std::vector<bool> matched;

  bool holds(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool any = false;
    for (size_t i = 0; i < names.size(); ++i) {
      if (text.find(names[i]) != std::string::npos) any = matched[i] = true;
    }
    return any;
  }

  // The samples of models other than those held out (their group names begin with the model's).
  template <typename Sample>
  std::vector<Sample> without(std::vector<Sample> samples) {
    std::erase_if(samples, [&](const Sample& s) { return holds(s.group); });
    return samples;
  }
};

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < list.size();) {
    const size_t end = std::min(list.find(',', pos), list.size());
    if (end > pos) out.push_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::vector<GpuPreset> fit_gpu_presets(const std::string& truth_root, std::ostream& log,
                                       const std::string& hold_out) {
  HeldOut held;
  for (std::string name : split_names(hold_out)) {
    held.given.push_back(name);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    held.names.push_back(name);
  }
  held.matched.assign(held.names.size(), false);
  auto keep = [&](auto samples) { return held.without(std::move(samples)); };
  if (!std::filesystem::is_directory(truth_root)) {
    throw std::invalid_argument(truth_root + ": not a folder (the gpu-truth runs and profiles)");
  }
  std::vector<GpuPreset> out;

  // RTX PRO 6000: LLMServingSim's vLLM 0.19 operator profiles and its Llama-3.1-8B run.
  const std::vector<OpSample> pro_ops =
      keep(read_llmservingsim_profiles(truth_root, "RTXPRO6000", kRtxPro.name));
  const CardFit pro =
      fit_card(prior_of(kRtxPro.sheet), pro_ops, keep(read_rtx_pro_6000_run(truth_root)),
               read_llmservingsim_sampler(truth_root, "RTXPRO6000"),
               read_llmservingsim_small_kernels_ns(truth_root, "RTXPRO6000"), nullptr);

  // H100-SXM: BLIS's kernel profiles, Vidur's operators and all-reduce, LLMServingSim's 70B TP4
  // GEMMs, BLIS's whole runs; the KV capacity constants from the block counts vLLM logged.
  const std::vector<OpSample> h100_ops =
      keep(concat(concat(read_blis_kernel_profiles(truth_root), read_vidur_profiles(truth_root)),
                  read_h100_70b_layers(truth_root)));
  const std::vector<StageSample> h100_runs = keep(read_blis_run_stages(truth_root));
  // The H100 profiles time the norms and activation only as PyTorch's eager kernels: their speed
  // relative to the weight stream is the RTX PRO 6000's (vLLM's fused kernels, LLMServingSim).
  GpuStepCoefficients h100_prior = prior_of(kH100.sheet);
  h100_prior.elementwise_speed = pro.coefficients.elementwise_speed;
  const CardFit h100 = fit_card(h100_prior, h100_ops, h100_runs, {}, -1, &pro.coefficients);
  log_fit(log, kH100.name, h100);
  GpuPreset h100_preset = preset_of(kH100, h100.coefficients, {1e9, 1e8, 50, 4});
  std::vector<KvBlockSample> kv = read_kv_block_samples(truth_root);
  for (KvBlockSample& s : kv) {
    if (held.holds(s.model.name)) s.fitted = false;
  }
  const std::vector<double> kv_errors = fit_kv_memory(h100_preset.profile, kv);
  log << "  kv blocks (reserved, tp, sampler, activation):\n";
  std::vector<double> fitted_errors;
  std::vector<bool> kept;
  for (size_t i = 0; i < kv.size(); ++i) {
    log << "      " << kv[i].source << ": logged " << kv[i].logged_blocks << ", predicted "
        << static_cast<int64_t>(predicted_kv_blocks(h100_preset.profile, kv[i])) << " ("
        << percent(kv_errors[i]) << (kv[i].fitted ? "" : ", not fitted") << ")\n";
    fitted_errors.push_back(kv_errors[i]);
    kept.push_back(kv[i].fitted);
  }
  const GpuMemoryCoefficients memory = h100_preset.profile.memory;
  {
    GpuProvenance& p = h100_preset.provenance;
    p.derivation =
        "fitted to H100 SXM measurements: BLIS kernel profiles (vLLM 0.14), Vidur operator and "
        "all-reduce profiles, LLMServingSim's Llama-3.1-70B TP4 GEMMs, and the mean decode step "
        "of BLIS's vLLM v0.15.1 runs (per load stage)";
    p.confidence = "measured: the card the most data covers";
    p.sources = {"blis/kernel-profiles/*.yaml",
                 "op-profiles/vidur/data/profiling/compute/h100",
                 "op-profiles/vidur/data/profiling/network/h100_dgx/all_reduce.csv",
                 "op-profiles/h100-llama-3.1-70b-tp4/perf_models/H100/meta-llama/Llama-3.1-70B/tp4/"
                 "layers.csv",
                 "blis/measured.csv",
                 "blis/experiments.csv",
                 "blis/runs/*/results",
                 "blis/trainval-exact-config.json (total_kv_blocks)"};
    p.residuals = residuals_of(h100);
    const ErrorSummary kv_summary = summarize_errors(fitted_errors, &kept);
    p.residuals.push_back({"kv blocks",
                           "reserved_bytes, tensor_parallel_bytes, sampler_bytes_per_logit, "
                           "activation_bytes_per_hidden",
                           static_cast<int64_t>(kv_summary.samples), 0, kv_summary.median,
                           kv_summary.p90, kv_summary.max, kv_summary.signed_median});
  }
  out.push_back(h100_preset);

  log_fit(log, kRtxPro.name, pro);
  if (pro.stages.empty()) throw std::invalid_argument("no RTX PRO 6000 measurements");
  GpuPreset pro_preset = preset_of(kRtxPro, pro.coefficients, memory);
  pro_preset.provenance.derivation =
      "fitted to RTX PRO 6000 (Blackwell) measurements: LLMServingSim's vLLM 0.19 operator "
      "profiles (Llama-3.1-8B, Qwen3-32B at TP2 shard, Qwen3-30B-A3B) and its Llama-3.1-8B "
      "ShareGPT run (per-second mean steps); the per-layer cost is the profile's small kernels; "
      "KV-capacity constants from H100-SXM";
  pro_preset.provenance.confidence =
      "measured for one GPU; all-reduce not measured (PCIe 5 assumed: 25 us + bus at 70%)";
  pro_preset.provenance.sources = {"op-profiles/llmservingsim/RTXPRO6000",
                                   "llmservingsim/rtxpro6000-llama-3.1-8b/vllm"};
  pro_preset.provenance.residuals = residuals_of(pro);
  out.push_back(pro_preset);

  // RTX 4090: its operator profiles; the host costs (no run) from the RTX PRO 6000 (same vLLM).
  const std::vector<OpSample> rtx_ops =
      keep(read_llmservingsim_profiles(truth_root, "RTX4090", kRtx4090.name));
  GpuStepCoefficients rtx_prior = prior_of(kRtx4090.sheet);
  rtx_prior.step_ns = pro.coefficients.step_ns;
  rtx_prior.per_sequence_ns = pro.coefficients.per_sequence_ns;
  const CardFit rtx = fit_card(rtx_prior, rtx_ops, {},
                               read_llmservingsim_sampler(truth_root, "RTX4090"), -1, nullptr);
  GpuStepCoefficients rtx_coefficients = rtx.coefficients;
  rtx_coefficients.per_layer_ns = read_llmservingsim_small_kernels_ns(truth_root, "RTX4090");
  log_fit(log, kRtx4090.name, rtx);
  GpuPreset rtx_preset = preset_of(kRtx4090, rtx_coefficients, memory);
  rtx_preset.provenance.derivation =
      "fitted to RTX 4090 measurements: LLMServingSim's vLLM 0.19 operator profiles of "
      "Llama-3.1-8B; per-step and per-sequence host costs from the RTX PRO 6000's run (same vLLM "
      "version, no run on this card); per-layer cost from the profile's small kernels; "
      "KV-capacity constants from H100-SXM";
  rtx_preset.provenance.confidence =
      "kernels measured; host costs transferred; no whole run to check against; all-reduce "
      "assumed (PCIe 4)";
  rtx_preset.provenance.sources = {"op-profiles/llmservingsim/RTX4090"};
  rtx_preset.provenance.residuals = residuals_of(rtx);
  out.push_back(rtx_preset);

  // Cards without measurements.
  auto derived = [&](const Card& card, const GpuPreset& from, const std::string& how,
                     const std::string& confidence) {
    GpuPreset p =
        preset_of(card, scaled(from.profile.step, from.profile.datasheet, card.sheet), memory);
    p.provenance.derivation = "derived from " + from.profile.name + ": " + how;
    p.provenance.confidence = confidence;
    p.provenance.sources = {"the " + from.profile.name + " preset's fit", "NVIDIA datasheet"};
    return p;
  };
  out.push_back(derived(kH200, h100_preset,
                        "the same Hopper chip with HBM3e: weight and KV streaming scaled by "
                        "4.8/3.35 TB/s, compute, kernel, layer and host costs as measured on H100",
                        "good for compute-bound steps (same SMs); decode steps rest on the "
                        "assumption that HBM3e streams at H100's measured fraction of its "
                        "datasheet bandwidth (unchecked, no H200 run here)"));
  out.push_back(derived(kH100Pcie, h100_preset,
                        "bandwidth scaled by 2.0/3.35 TB/s and tensor peaks by 756/989; all-reduce "
                        "over PCIe 5 (assumed 25 us + bus at 70%)",
                        "low: no measurements of this card"));
  out.push_back(derived(kB200, h100_preset,
                        "bandwidth scaled by 7.7/3.35 TB/s, tensor peaks by 2250/989 (FP8 "
                        "4500/1979), NVLink 5 at twice NVLink 4",
                        "low: another architecture, no measurements"));
  GpuPreset a100 =
      derived(kA100, h100_preset,
              "BF16 peak scaled by 312/989 (H100's measured fraction of it); no FP8 tensor cores "
              "(FP8 weights at the bf16 rate); bandwidth scaled by 2.039/3.35 TB/s times the "
              "A100's streaming efficiency relative to H100's, fitted to Splitwise's Llama-2-70B "
              "TP2 decode steps on both cards (same engine: its own per-step cost taken as the "
              "H100 rows' excess over this model's H100 price)",
              "medium-low: the streaming factor rests on another engine's TP2 decodes (its TP4 "
              "and TP8 rows are dominated by that engine's own per-step cost); compute not "
              "measured on A100");
  fit_a100_streaming(a100, h100.coefficients, truth_root, log);
  out.push_back(a100);
  out.push_back(derived(kA100Small, a100, "bandwidth scaled by 1.555/2.039 TB/s (HBM2 vs HBM2e)",
                        "as A100-80GB's, plus the bandwidth scaling"));
  out.push_back(
      derived(kL40S, rtx_preset,
              "the same AD102 chip as the RTX 4090: bandwidth scaled by 0.864/1.008 TB/s, "
              "BF16 peak by 362/165.2 (the L40S's tensor cores accumulate in FP32 at full "
              "rate), FP8 by 733/330.3",
              "medium: kernels measured on the 4090; the tensor-peak ratio assumes the "
              "4090's achieved fraction carries over"));
  for (size_t i = 0; i < held.names.size(); ++i) {
    if (!held.matched[i]) {
      throw std::invalid_argument("--hold-out " + held.given[i] +
                                  ": no run, profile or KV count of " + truth_root +
                                  " is of a model so named");
    }
  }
  if (!held.names.empty()) {
    for (GpuPreset& p : out) p.provenance.fit += "; held out of the fit: " + hold_out;
  }
  return out;
}

}  // namespace llm
