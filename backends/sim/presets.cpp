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

constexpr double kMiB = 1024.0 * 1024.0;
constexpr Nanos kMicro = 1000;

// Host-side costs, the same for every GPU preset (they are CPU work: scheduling, input
// preparation, kernel launches, sampling bookkeeping).
// - 126 us per step: the constant per-step term of the BLIS (inference-sim) fitted step model. It
//   sits at the low end of vLLM's own 0.1-0.3 ms per-step CPU overhead with async scheduling,
//   which fits a model where most CPU work overlaps the GPU.
// - 4.4 us per sequence: BLIS's fitted per-request term.
// BLIS's per-layer term (32 us) is left out: BLIS fitted it together with its own device terms,
// while our roofline already charges kernel inefficiency through the efficiency fractions, so
// adding it would count that cost twice (our judgement).
constexpr Nanos kStepOverheadNs = 126 * kMicro;
constexpr Nanos kPerSequenceOverheadNs = 4400;

// Fixed latency of one all-reduce (GpuProfile::allreduce_latency_ns). NVLink parts: NVIDIA
// AIConfigurator's ~10 us per GPU-to-GPU transfer. PCIe-only cards: 25 us, the top of the 10-25 us
// range, since their all-reduces cross the PCIe switch (our assumption).
constexpr Nanos kNvlinkNs = 10 * kMicro;
constexpr Nanos kPcieNs = 25 * kMicro;

// Achievable fraction of HBM bandwidth: AIConfigurator's 0.8 scale, used for every GPU.
constexpr double kMemoryEfficiency = 0.8;

// Rates are in base units (bytes/s, FLOP/s) written as the datasheet's figure with its exponent, so
// that the stored double is exactly the literal (2.039e12, not 2.039 * 1e12).
GpuProfile make_gpu(std::string name, double memory_mib, double hbm_bytes_per_s, double bf16_flops,
                    double fp8_flops, double link_bytes_per_s, double compute_efficiency,
                    Nanos allreduce_ns) {
  GpuProfile g;
  g.name = std::move(name);
  g.memory_bytes = memory_mib * kMiB;
  g.hbm_bytes_per_s = hbm_bytes_per_s;
  g.bf16_flops = bf16_flops;
  g.fp8_flops = fp8_flops;
  g.link_bytes_per_s = link_bytes_per_s;
  g.compute_efficiency = compute_efficiency;
  g.memory_efficiency = kMemoryEfficiency;
  g.step_overhead_ns = kStepOverheadNs;
  g.per_sequence_overhead_ns = kPerSequenceOverheadNs;
  g.allreduce_latency_ns = allreduce_ns;
  return g;
}

// Memory: driver-reported total (nvidia-smi, MiB). Bandwidth, dense (non-sparse) BF16/FP8 peaks and
// one-way per-GPU link bandwidth: NVIDIA datasheets. Compute efficiency: best-case BF16 GEMM
// fraction of peak as published for each architecture (0.80 Hopper, 0.87 Ampere, 0.78 Blackwell);
// the L40S (Ada) has no published figure, so it borrows Hopper's 0.80 (our assumption).
const std::vector<GpuProfile>& gpu_table() {
  static const std::vector<GpuProfile> table = {
      // clang-format off
      //       name         MiB     HBM B/s   BF16 FLOP/s  FP8 FLOP/s  link B/s  eff   all-reduce
      make_gpu("H200",      143771, 4.8e12,   989e12,      1979e12,    450e9,    0.80, kNvlinkNs),
      make_gpu("H100-SXM",  81559,  3.35e12,  989e12,      1979e12,    450e9,    0.80, kNvlinkNs),
      make_gpu("H100-PCIe", 81559,  2.0e12,   756e12,      1513e12,    64e9,     0.80, kPcieNs),
      make_gpu("A100-80GB", 81920,  2.039e12, 312e12,      0,          300e9,    0.87, kNvlinkNs),
      make_gpu("L40S",      46068,  0.864e12, 362e12,      733e12,     32e9,     0.80, kPcieNs),
      make_gpu("B200",      183359, 7.7e12,   2250e12,     4500e12,    900e9,    0.78, kNvlinkNs),
      // clang-format on
  };
  return table;
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

GpuProfile gpu_from_json(const json& obj, const std::string& file) {
  GpuProfile g;
  FieldReader r(obj, file);
  r.read("name", g.name, true);
  r.read("memory_bytes", g.memory_bytes, true);
  r.read("hbm_bytes_per_s", g.hbm_bytes_per_s, true);
  r.read("bf16_flops", g.bf16_flops, true);
  r.read("fp8_flops", g.fp8_flops, false);
  r.read("link_bytes_per_s", g.link_bytes_per_s, true);
  r.read("compute_efficiency", g.compute_efficiency, true);
  r.read("memory_efficiency", g.memory_efficiency, true);
  r.read("step_overhead_ns", g.step_overhead_ns, true);
  r.read("per_sequence_overhead_ns", g.per_sequence_overhead_ns, true);
  r.read("allreduce_latency_ns", g.allreduce_latency_ns, true);
  r.reject_unknown();
  require_positive(r, "memory_bytes", g.memory_bytes);
  require_positive(r, "hbm_bytes_per_s", g.hbm_bytes_per_s);
  require_positive(r, "bf16_flops", g.bf16_flops);
  require_non_negative(r, "fp8_flops", g.fp8_flops);
  require_non_negative(r, "link_bytes_per_s", g.link_bytes_per_s);
  require_fraction(r, "compute_efficiency", g.compute_efficiency);
  require_fraction(r, "memory_efficiency", g.memory_efficiency);
  require_non_negative(r, "step_overhead_ns", static_cast<double>(g.step_overhead_ns));
  require_non_negative(r, "per_sequence_overhead_ns",
                       static_cast<double>(g.per_sequence_overhead_ns));
  require_non_negative(r, "allreduce_latency_ns", static_cast<double>(g.allreduce_latency_ns));
  return g;
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
  r.reject_unknown();
  const std::pair<const char*, int64_t> counts[] = {
      {"layers", m.layers},
      {"hidden", m.hidden},
      {"heads", m.heads},
      {"kv_heads", m.kv_heads},
      {"head_dim", m.head_dim},
      {"ffn", m.ffn},
      {"vocab", m.vocab},
      {"weight_bytes_per_param", m.weight_bytes_per_param},
      {"max_context", m.max_context}};
  for (const auto& [key, value] : counts) require_positive(r, key, static_cast<double>(value));
  if (m.kv_heads > m.heads) r.fail("kv_heads", "must not exceed heads");
  if (!r.has("params")) m.params = params_from_shape(m);
  require_positive(r, "params", static_cast<double>(m.params));
  return m;
}

}  // namespace

const GpuProfile* find_gpu_preset(std::string_view name) { return find_by_name(gpu_table(), name); }

const ModelShape* find_model_preset(std::string_view name) {
  return find_by_name(model_table(), name);
}

std::vector<std::string> gpu_preset_names() { return names_of(gpu_table()); }

std::vector<std::string> model_preset_names() { return names_of(model_table()); }

GpuProfile load_gpu_profile(const std::string& name_or_json_path) {
  if (is_json_path(name_or_json_path)) {
    return gpu_from_json(read_json_object(name_or_json_path), name_or_json_path);
  }
  if (const GpuProfile* g = find_gpu_preset(name_or_json_path)) return *g;
  throw std::invalid_argument("unknown GPU preset '" + name_or_json_path + "' (known: " +
                              join(gpu_preset_names()) + "; or a path ending in .json)");
}

ModelShape load_model_shape(const std::string& name_or_json_path) {
  if (is_json_path(name_or_json_path)) {
    return model_from_json(read_json_object(name_or_json_path), name_or_json_path);
  }
  if (const ModelShape* m = find_model_preset(name_or_json_path)) return *m;
  throw std::invalid_argument("unknown model preset '" + name_or_json_path + "' (known: " +
                              join(model_preset_names()) + "; or a path ending in .json)");
}

int64_t kv_cache_dtype_bytes(std::string_view dtype) {
  if (dtype == "auto" || dtype == "bfloat16" || dtype == "float16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3" || dtype == "fp8_e5m2") return 1;
  throw std::invalid_argument("unknown kv cache dtype '" + std::string(dtype) +
                              "' (accepted: auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2)");
}

int64_t params_from_shape(const ModelShape& m) {
  const int64_t h = m.hidden;
  const int64_t attention = h * (m.heads + 2 * m.kv_heads) * m.head_dim + m.heads * m.head_dim * h;
  const int64_t mlp = 3 * h * m.ffn;
  const int64_t norms = 2 * h;
  const int64_t embeddings = m.vocab * h;
  const int64_t lm_head = m.tied_embeddings ? 0 : m.vocab * h;
  return embeddings + m.layers * (attention + mlp + norms) + h + lm_head;
}

}  // namespace llm
