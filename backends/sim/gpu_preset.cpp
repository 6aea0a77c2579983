#include "backends/sim/gpu_preset.h"

#include <cmath>
#include <stdexcept>

#include "backends/sim/json_fields.h"

namespace llm {
namespace {

using sim_json::FieldReader;
using sim_json::json;

constexpr int64_t kGpuFileVersion = 1;

struct MemoryField {
  const char* name;
  double GpuMemoryCoefficients::*member;
};
constexpr MemoryField kMemoryFields[] = {
    {"reserved_bytes", &GpuMemoryCoefficients::reserved_bytes},
    {"tensor_parallel_bytes", &GpuMemoryCoefficients::tensor_parallel_bytes},
    {"sampler_bytes_per_logit", &GpuMemoryCoefficients::sampler_bytes_per_logit},
    {"activation_bytes_per_hidden", &GpuMemoryCoefficients::activation_bytes_per_hidden}};

void fail_on(const FieldReader& r, const std::string& problem) {
  if (problem.empty()) return;
  const size_t colon = problem.find(':');
  r.fail(problem.substr(0, colon), problem.substr(colon + 2));
}

std::vector<std::string> strings(const json& v, const FieldReader& r, const std::string& key) {
  std::vector<std::string> out;
  if (!v.is_array()) r.fail(key, "expected a list of strings");
  for (const json& s : v) {
    if (!s.is_string()) r.fail(key, "expected a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

}  // namespace

std::string gpu_memory_problem(const GpuMemoryCoefficients& m) {
  for (const MemoryField& f : kMemoryFields) {
    const double v = m.*f.member;
    if (!std::isfinite(v) || v < 0) return std::string(f.name) + ": must be a finite number >= 0";
  }
  return "";
}

GpuPreset gpu_preset_from_json(const json& obj, const std::string& file) {
  GpuPreset p;
  FieldReader r(obj, file);
  int64_t version = 0;
  r.read("llmsim_gpu", version, true);
  if (version != kGpuFileVersion) {
    r.fail("llmsim_gpu", "this llmsim reads version " + std::to_string(kGpuFileVersion) + ", got " +
                             std::to_string(version));
  }
  r.read("name", p.profile.name, true);
  if (p.profile.name.empty()) r.fail("name", "must not be empty");
  if (const json* aliases = r.value_if("aliases")) p.aliases = strings(*aliases, r, "aliases");
  {
    FieldReader d(r.object("datasheet"), file + ": datasheet");
    GpuDatasheet& ds = p.profile.datasheet;
    d.read("memory_bytes", ds.memory_bytes, true);
    d.read("hbm_bytes_per_s", ds.hbm_bytes_per_s, true);
    d.read("bf16_flops", ds.bf16_flops, true);
    d.read("fp8_flops", ds.fp8_flops, false);
    d.read("link_bytes_per_s", ds.link_bytes_per_s, true);
    d.read("link", ds.link, false);
    d.reject_unknown();
    sim_json::require_positive(d, "memory_bytes", ds.memory_bytes);
    sim_json::require_positive(d, "hbm_bytes_per_s", ds.hbm_bytes_per_s);
    sim_json::require_positive(d, "bf16_flops", ds.bf16_flops);
    sim_json::require_non_negative(d, "fp8_flops", ds.fp8_flops);
    sim_json::require_non_negative(d, "link_bytes_per_s", ds.link_bytes_per_s);
  }
  {
    FieldReader s(r.object("step_time"), file + ": step_time");
    for (const GpuCoefficientField& f : gpu_coefficient_fields()) {
      s.read(f.name, p.profile.step.*f.member, !f.optional);
    }
    s.reject_unknown();
    fail_on(s, gpu_coefficients_problem(p.profile.step));
  }
  {
    FieldReader m(r.object("kv_memory"), file + ": kv_memory");
    for (const MemoryField& f : kMemoryFields) m.read(f.name, p.profile.memory.*f.member, true);
    m.reject_unknown();
    fail_on(m, gpu_memory_problem(p.profile.memory));
  }
  if (const json* prov = r.object_if("provenance")) {
    FieldReader v(*prov, file + ": provenance");
    GpuProvenance& g = p.provenance;
    v.read("derivation", g.derivation, false);
    v.read("confidence", g.confidence, false);
    v.read("fit", g.fit, false);
    if (const json* sources = v.value_if("sources")) g.sources = strings(*sources, v, "sources");
    if (const json* residuals = v.value_if("residuals")) {
      const json& list = *residuals;
      if (!list.is_array()) v.fail("residuals", "expected a list of objects");
      for (const json& item : list) {
        if (!item.is_object()) v.fail("residuals", "expected a list of objects");
        FieldReader e(item, file + ": provenance: residuals");
        PresetResidual res;
        e.read("stage", res.stage, true);
        e.read("coefficients", res.coefficients, false);
        e.read("samples", res.samples, true);
        e.read("trimmed", res.trimmed, false);
        e.read("median_abs_error", res.median_abs_error, true);
        e.read("p90_abs_error", res.p90_abs_error, true);
        e.read("max_abs_error", res.max_abs_error, true);
        e.read("median_error", res.median_error, false);
        e.reject_unknown();
        g.residuals.push_back(res);
      }
    }
    v.reject_unknown();
  }
  r.reject_unknown();
  return p;
}

std::string gpu_preset_json(const GpuPreset& p) {
  nlohmann::ordered_json j;
  j["llmsim_gpu"] = kGpuFileVersion;
  j["name"] = p.profile.name;
  j["aliases"] = p.aliases;
  auto& d = j["datasheet"];
  const GpuDatasheet& ds = p.profile.datasheet;
  d["memory_bytes"] = ds.memory_bytes;
  d["hbm_bytes_per_s"] = ds.hbm_bytes_per_s;
  d["bf16_flops"] = ds.bf16_flops;
  d["fp8_flops"] = ds.fp8_flops;
  d["link_bytes_per_s"] = ds.link_bytes_per_s;
  d["link"] = ds.link;
  auto& s = j["step_time"];
  for (const GpuCoefficientField& f : gpu_coefficient_fields())
    s[f.name] = p.profile.step.*f.member;
  auto& m = j["kv_memory"];
  for (const MemoryField& f : kMemoryFields) m[f.name] = p.profile.memory.*f.member;
  auto& v = j["provenance"];
  const GpuProvenance& g = p.provenance;
  v["derivation"] = g.derivation;
  v["confidence"] = g.confidence;
  v["fit"] = g.fit;
  v["sources"] = g.sources;
  v["residuals"] = nlohmann::ordered_json::array();
  for (const PresetResidual& res : g.residuals) {
    nlohmann::ordered_json e;
    e["stage"] = res.stage;
    e["coefficients"] = res.coefficients;
    e["samples"] = res.samples;
    e["trimmed"] = res.trimmed;
    e["median_abs_error"] = res.median_abs_error;
    e["p90_abs_error"] = res.p90_abs_error;
    e["max_abs_error"] = res.max_abs_error;
    e["median_error"] = res.median_error;
    v["residuals"].push_back(e);
  }
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace llm
