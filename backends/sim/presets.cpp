// GPU and model presets for the mock GPU, and their JSON loaders. Each number below names where it
// comes from; docs/cost-model.md gives the same list with the reasoning behind the fitted ones.
// Thread-safety: the tables are function-local statics built once (thread-safe initialisation)
// and never modified; the loaders only read their file.
#include "backends/sim/presets.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/sim/gpu_preset_files.h"
#include "backends/sim/hf_model_config.h"
#include "backends/sim/json_fields.h"

namespace llm {
namespace {

using sim_json::FieldReader;
using sim_json::is_json_path;
using sim_json::join;
using sim_json::json;
using sim_json::read_json_object;
using sim_json::require_fraction;
using sim_json::require_non_negative;
using sim_json::require_positive;

// The calibrated GPU presets: one data file per card (backends/sim/gpus/*.json), compiled in.
// Their numbers and provenance are the fit's (llmsim calibrate --runs; docs/cost-model.md).
const std::vector<GpuPreset>& gpu_table() {
  static const std::vector<GpuPreset> table = [] {
    std::vector<GpuPreset> out;
    for (const EmbeddedFile& f : gpu_preset_files()) {
      json obj;
      try {
        obj = json::parse(f.text);
      } catch (const json::exception& e) {
        throw std::logic_error(std::string("built-in GPU preset ") + f.name + ": " + e.what());
      }
      out.push_back(gpu_preset_from_json(obj, std::string("built-in ") + f.name));
    }
    return out;
  }();
  return table;
}

// A GPU file in the format before the calibrated presets (datasheet rates, two efficiencies and
// three overheads): roofline_gpu of its numbers.
GpuProfile gpu_from_roofline_json(const json& obj, const std::string& file) {
  GpuProfile g;
  FieldReader r(obj, file);
  GpuDatasheet& ds = g.datasheet;
  double compute_efficiency = 0, memory_efficiency = 0;
  Nanos step_overhead = 0, per_sequence = 0, allreduce = 0;
  r.read("name", g.name, true);
  r.read("memory_bytes", ds.memory_bytes, true);
  r.read("hbm_bytes_per_s", ds.hbm_bytes_per_s, true);
  r.read("bf16_flops", ds.bf16_flops, true);
  r.read("fp8_flops", ds.fp8_flops, false);
  r.read("link_bytes_per_s", ds.link_bytes_per_s, true);
  r.read("compute_efficiency", compute_efficiency, true);
  r.read("memory_efficiency", memory_efficiency, true);
  r.read("step_overhead_ns", step_overhead, true);
  r.read("per_sequence_overhead_ns", per_sequence, true);
  r.read("allreduce_latency_ns", allreduce, true);
  r.reject_unknown();
  require_positive(r, "memory_bytes", ds.memory_bytes);
  require_positive(r, "hbm_bytes_per_s", ds.hbm_bytes_per_s);
  require_positive(r, "bf16_flops", ds.bf16_flops);
  require_non_negative(r, "fp8_flops", ds.fp8_flops);
  require_non_negative(r, "link_bytes_per_s", ds.link_bytes_per_s);
  require_fraction(r, "compute_efficiency", compute_efficiency);
  require_fraction(r, "memory_efficiency", memory_efficiency);
  require_non_negative(r, "step_overhead_ns", static_cast<double>(step_overhead));
  require_non_negative(r, "per_sequence_overhead_ns", static_cast<double>(per_sequence));
  require_non_negative(r, "allreduce_latency_ns", static_cast<double>(allreduce));
  const GpuProfile reference = roofline_gpu(
      g.name, ds, compute_efficiency, memory_efficiency, static_cast<double>(step_overhead),
      static_cast<double>(per_sequence), static_cast<double>(allreduce));
  g.step = reference.step;
  g.memory = reference.memory;
  return g;
}

struct ShapeRow {
  const char* name;
  int64_t hidden, ffn, layers, heads, kv_heads, head_dim, vocab;
  bool tied;
  int64_t params, max_context;
};

ModelShape make_model(const ShapeRow& r) {
  ModelShape m;
  m.name = r.name;
  m.layers = r.layers;
  m.hidden = r.hidden;
  m.heads = r.heads;
  m.kv_heads = r.kv_heads;
  m.head_dim = r.head_dim;
  m.ffn = r.ffn;
  m.vocab = r.vocab;
  m.tied_embeddings = r.tied;
  m.params = r.params;
  m.weight_bytes_per_param = 2;  // bf16 checkpoints
  m.max_context = r.max_context;
  return m;
}

// Shapes: each model's Hugging Face config.json (hidden_size, intermediate_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim, vocab_size,
// tie_word_embeddings, max_position_embeddings). params: the safetensors parameter count (equal to
// params_from_shape for Llama/Mistral; Qwen2.5 adds QKV biases, Qwen3 adds q/k norms).
const std::vector<ModelShape>& model_table() {
  static const std::vector<ShapeRow> rows = {
      // clang-format off
      // name              hidden ffn    L   nh  kv d    vocab   tied   params       context
      {"Llama-3.1-8B",     4096,  14336, 32, 32, 8, 128, 128256, false, 8030261248,  131072},
      {"Llama-3.2-1B",     2048,  8192,  16, 32, 8, 64,  128256, true,  1235814400,  131072},
      {"Llama-3.2-3B",     3072,  8192,  28, 24, 8, 128, 128256, true,  3212749824,  131072},
      {"Llama-3.1-70B",    8192,  28672, 80, 64, 8, 128, 128256, false, 70553706496, 131072},
      {"Qwen2.5-7B",       3584,  18944, 28, 28, 4, 128, 152064, false, 7615616512,  32768},
      {"Mistral-7B-v0.3",  4096,  14336, 32, 32, 8, 128, 32768,  false, 7248023552,  32768},
      {"Qwen3-8B",         4096,  12288, 36, 32, 8, 128, 151936, false, 8190735360,  40960},
      // clang-format on
  };
  static const std::vector<ModelShape> table = [] {
    std::vector<ModelShape> out;
    for (const ShapeRow& r : rows) out.push_back(make_model(r));
    return out;
  }();
  return table;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

template <typename T>
const T* find_by_name(const std::vector<T>& table, std::string_view name) {
  for (const T& t : table) {
    if (t.name == name) return &t;
  }
  for (const T& t : table) {
    if (iequals(t.name, name)) return &t;
  }
  return nullptr;
}

template <typename T>
std::vector<std::string> names_of(const std::vector<T>& table) {
  std::vector<std::string> out;
  for (const T& t : table) out.push_back(t.name);
  return out;
}

ModelShape model_from_json(const json& obj, const std::string& file) {
  ModelShape m;
  FieldReader r(obj, file);
  r.read("name", m.name, true);
  r.read("layers", m.layers, true);
  r.read("hidden", m.hidden, true);
  r.read("heads", m.heads, true);
  r.read("kv_heads", m.kv_heads, true);
  r.read("head_dim", m.head_dim, true);
  r.read("ffn", m.ffn, true);
  r.read("vocab", m.vocab, true);
  r.read("tied_embeddings", m.tied_embeddings, false);
  r.read("params", m.params, false);
  r.read("weight_bytes_per_param", m.weight_bytes_per_param, false);
  r.read("max_context", m.max_context, true);
  // Optional: mixture of experts and the widths of quantized matrices (model_shape.h).
  r.read("moe_layers", m.moe_layers, false);
  r.read("num_experts", m.num_experts, false);
  r.read("experts_per_token", m.experts_per_token, false);
  r.read("expert_ffn", m.expert_ffn, false);
  r.read("shared_expert_ffn", m.shared_expert_ffn, false);
  r.read("attention_weight_bytes", m.attention_weight_bytes, false);
  r.read("mlp_weight_bytes", m.mlp_weight_bytes, false);
  r.reject_unknown();
  const bool count_params = !r.has("params");
  if (count_params) m.params = 1;  // checked before it is counted, so that it cannot overflow
  for (int pass = 0; pass < (count_params ? 2 : 1); ++pass) {
    if (const std::string problem = model_shape_problem(m); !problem.empty()) {
      const size_t colon = problem.find(':');
      r.fail(problem.substr(0, colon), problem.substr(colon + 2));
    }
    if (count_params) m.params = params_from_shape(m);
  }
  return m;
}

}  // namespace

GpuProfile roofline_gpu(const std::string& name, const GpuDatasheet& datasheet,
                        double compute_efficiency, double memory_efficiency, double step_ns,
                        double per_sequence_ns, double allreduce_ns) {
  GpuProfile g;
  g.name = name;
  g.datasheet = datasheet;
  GpuStepCoefficients& c = g.step;
  c.step_ns = step_ns;
  c.per_sequence_ns = per_sequence_ns;
  c.weight_bytes_per_s = datasheet.hbm_bytes_per_s * memory_efficiency;
  c.kv_bytes_per_s = c.weight_bytes_per_s;
  c.prefill_kv_bytes_per_s = c.weight_bytes_per_s;
  c.mixed_kv_bytes_per_s = c.weight_bytes_per_s;
  c.gemm_flops_bf16 = datasheet.bf16_flops * compute_efficiency;
  c.gemm_flops_fp8 = datasheet.fp8_flops * compute_efficiency;
  c.attention_flops = c.gemm_flops_bf16;
  c.gemm_sharpness = 64;
  c.elementwise_speed = 1e6;
  c.allreduce_ns = allreduce_ns;
  c.link_bytes_per_s = datasheet.link_bytes_per_s;
  if (const GpuProfile* reference = find_gpu_preset("H100-SXM")) g.memory = reference->memory;
  return g;
}

const GpuPreset* find_gpu_preset_file(std::string_view name) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const GpuPreset& p : gpu_table()) {
      auto same = [&](const std::string& n) { return pass == 0 ? n == name : iequals(n, name); };
      if (same(p.profile.name)) return &p;
      for (const std::string& alias : p.aliases) {
        if (same(alias)) return &p;
      }
    }
  }
  return nullptr;
}

const GpuProfile* find_gpu_preset(std::string_view name) {
  const GpuPreset* p = find_gpu_preset_file(name);
  return p ? &p->profile : nullptr;
}

const ModelShape* find_model_preset(std::string_view name) {
  return find_by_name(model_table(), name);
}

std::vector<std::string> gpu_preset_names() {
  std::vector<std::string> out;
  for (const GpuPreset& p : gpu_table()) out.push_back(p.profile.name);
  return out;
}

std::vector<std::string> model_preset_names() { return names_of(model_table()); }

GpuProfile load_gpu_profile(const std::string& name_or_json_path) {
  if (is_json_path(name_or_json_path)) {
    const json obj = read_json_object(name_or_json_path);
    if (obj.contains("llmsim_gpu")) return gpu_preset_from_json(obj, name_or_json_path).profile;
    return gpu_from_roofline_json(obj, name_or_json_path);
  }
  if (const GpuProfile* g = find_gpu_preset(name_or_json_path)) return *g;
  throw std::invalid_argument("unknown GPU preset '" + name_or_json_path +
                              "' (known: " + join(gpu_preset_names()) +
                              "; or a path ending in .json: a GPU file of llmsim calibrate)");
}

ModelShape load_model_shape(const std::string& name_or_json_path) {
  if (is_hf_model_config(name_or_json_path)) return load_hf_model_config(name_or_json_path);
  if (is_json_path(name_or_json_path)) {
    return model_from_json(read_json_object(name_or_json_path), name_or_json_path);
  }
  if (const ModelShape* m = find_model_preset(name_or_json_path)) return *m;
  throw std::invalid_argument("unknown model preset '" + name_or_json_path +
                              "' (known: " + join(model_preset_names()) +
                              "; or a path ending in .json: llmsim's model schema or a Hugging "
                              "Face config.json, or a folder holding a config.json)");
}

int64_t kv_cache_dtype_bytes(std::string_view dtype) {
  if (dtype == "auto" || dtype == "bfloat16" || dtype == "float16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return 1;
  throw std::invalid_argument("unknown kv cache dtype '" + std::string(dtype) +
                              "' (accepted: auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2)");
}

}  // namespace llm
