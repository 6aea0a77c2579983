// Readers of LLMServingSim's operator profiles: the vLLM 0.19 per-operator tables of
// op-profiles/llmservingsim/ and the H100 Llama-3.1-70B TP4 layer table.
// Thread-safety: plain functions.
#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/gpu_fit/csv_table.h"
#include "calibrate/gpu_fit/profile_readers.h"
#include "calibrate/gpu_fit/simple_yaml.h"
#include "calibrate/gpu_fit/truth_models.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

// The sample of row i of a profile table: its card, origin, source, group and measured time.
OpSample row_sample(const CsvTable& t, size_t i, const std::string& card,
                    const std::string& group) {
  OpSample s;
  s.card = card;
  s.origin = "llmservingsim " + card;
  s.source = t.where(i);
  s.group = group;
  s.measured_ns = t.number(i, "time_us") * 1e3;
  return s;
}

// The tp<N> folders under a profile folder, in order.
std::vector<std::pair<int64_t, fs::path>> tp_folders(const fs::path& variant) {
  std::vector<std::pair<int64_t, fs::path>> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(variant, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.rfind("tp", 0) == 0 && name.size() > 2 &&
        name.find_first_not_of("0123456789", 2) == std::string::npos) {
      out.emplace_back(std::stoll(name.substr(2)), entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The model named by the profile's meta.yaml ("model: meta-llama/Llama-3.1-8B").
std::string profile_model(const fs::path& variant) {
  const nlohmann::json meta = read_simple_yaml((variant / "meta.yaml").string());
  if (!meta.is_object() || !meta.contains("model") || !meta["model"].is_string()) {
    throw std::invalid_argument((variant / "meta.yaml").string() + ": missing field 'model'");
  }
  return meta["model"].get<std::string>();
}

void read_dense(const fs::path& file, const ModelShape& m, int64_t tp, const std::string& card,
                const std::string& group, std::vector<OpSample>& out) {
  const CsvTable t = CsvTable::read(file.string());
  const RankShape r = rank_shape(m, tp);
  const double bytes = static_cast<double>(m.weight_bytes_per_param);
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string& layer = t.text(i, "layer");
    const double n = t.number(i, "tokens");
    OpSample s = row_sample(t, i, card, group + " " + layer);
    s.tokens = n;
    if (layer == "qkv_proj") {
      s.gemms = {{r.qkv, bytes, n}};
    } else if (layer == "o_proj") {
      s.gemms = {{r.attn_out, bytes, n}};
    } else if (layer == "gate_up_proj") {
      s.gemms = {{r.gate_up, bytes, n}};
    } else if (layer == "down_proj") {
      s.gemms = {{r.down, bytes, n}};
    } else if (n < 256) {
      continue;  // the small kernels' fixed cost is the layer's; their speed shows at many tokens
    } else if (layer == "act_fn") {
      s.kind = OpKind::kElementwise;
      s.elementwise_bytes = n * 3.0 * r.down / r.hidden * 2.0;  // gate and up in, product out
    } else if (layer == "layernorm") {
      s.kind = OpKind::kElementwise;
      s.elementwise_bytes = n * 8.0 * r.hidden;  // fused add and norm: 2 in, 2 out, 16-bit
    } else if (layer == "rotary_emb") {
      s.kind = OpKind::kElementwise;
      s.elementwise_bytes = n * 4.0 * (r.heads + r.kv_heads) * r.head_dim;  // Q and K in and out
    } else {
      continue;  // embedding, final norm and q/k norms: per step or small
    }
    out.push_back(s);
  }
}

void read_attention(const fs::path& file, const ModelShape& m, int64_t tp, const std::string& card,
                    const std::string& group, std::vector<OpSample>& out) {
  const CsvTable t = CsvTable::read(file.string());
  const RankShape r = rank_shape(m, tp);
  for (size_t i = 0; i < t.rows(); ++i) {
    const double chunk = t.number(i, "prefill_chunk");
    const double kv_prefill = t.number(i, "kv_prefill");
    const double decodes = t.number(i, "n_decode");
    const double kv_decode = t.number(i, "kv_decode");
    if (chunk <= 0 && decodes <= 0) continue;
    OpSample s = row_sample(t, i, card, group);
    s.kind = chunk > 0 && decodes > 0 ? OpKind::kMixedAttention
             : chunk > 0              ? OpKind::kPrefillAttention
                                      : OpKind::kDecodeAttention;
    s.group += (s.kind == OpKind::kMixedAttention     ? " mixed_attention"
                : s.kind == OpKind::kPrefillAttention ? " prefill_attention"
                                                      : " decode_attention");
    s.decode_sequences = decodes;
    s.decode_kv_bytes = decodes * (kv_decode + 1) * r.kv_bytes_per_token;
    s.query_heads_per_kv_head = r.heads / r.kv_heads;
    s.prefill_tokens = chunk;
    s.heads = r.heads;
    s.head_dim = r.head_dim;
    s.pairs = chunk * (kv_prefill + chunk / 2.0);
    s.prefill_kv_bytes = kv_prefill * r.kv_bytes_per_token;
    out.push_back(s);
  }
}

void read_per_sequence(const fs::path& file, const ModelShape& m, int64_t tp,
                       const std::string& card, const std::string& group,
                       std::vector<OpSample>& out) {
  const CsvTable t = CsvTable::read(file.string());
  const RankShape r = rank_shape(m, tp);
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "layer") != "lm_head") continue;
    OpSample s = row_sample(t, i, card, group + " lm_head");
    s.gemms = {{r.vocab * r.hidden, static_cast<double>(m.weight_bytes_per_param),
                t.number(i, "sequences")}};
    out.push_back(s);
  }
}

void read_moe(const fs::path& file, const ModelShape& m, int64_t tp, const std::string& card,
              const std::string& group, std::vector<OpSample>& out) {
  const CsvTable t = CsvTable::read(file.string());
  const RankShape r = rank_shape(m, tp);
  const double expert = r.hidden * static_cast<double>(m.expert_ffn) / static_cast<double>(tp);
  const double bytes = static_cast<double>(mlp_weight_bytes(m));
  for (size_t i = 0; i < t.rows(); ++i) {
    const double n = t.number(i, "tokens");
    const double touched = t.number(i, "activated_experts");
    if (touched <= 0 || n <= 0) continue;
    OpSample s = row_sample(t, i, card, group + " moe");
    const double rows = n * static_cast<double>(m.experts_per_token) / touched;
    s.gemms = {{r.hidden * static_cast<double>(m.num_experts), 2.0, n},
               {touched * 2.0 * expert, bytes, rows},
               {touched * expert, bytes, rows}};
    out.push_back(s);
  }
}

}  // namespace

std::vector<OpSample> read_llmservingsim_profiles(const std::string& truth_root,
                                                  const std::string& folder,
                                                  const std::string& card) {
  const fs::path hw = fs::path(truth_root) / "op-profiles" / "llmservingsim" / folder;
  std::vector<fs::path> variants;  // <org>/<model>/<variant>
  std::error_code ec;
  for (const auto& org : fs::directory_iterator(hw, ec)) {
    for (const auto& model : fs::directory_iterator(org.path(), ec)) {
      for (const auto& variant : fs::directory_iterator(model.path(), ec)) {
        if (fs::is_regular_file(variant.path() / "meta.yaml")) variants.push_back(variant.path());
      }
    }
  }
  if (variants.empty()) throw std::invalid_argument(hw.string() + ": no operator profiles");
  std::sort(variants.begin(), variants.end());
  std::vector<OpSample> out;
  for (const fs::path& variant : variants) {
    const ModelShape m = truth_model(truth_root, profile_model(variant));
    for (const auto& [tp, dir] : tp_folders(variant)) {
      const std::string group = model_short_name(m.name) + " tp" + std::to_string(tp);
      read_dense(dir / "dense.csv", m, tp, card, group, out);
      read_attention(dir / "attention.csv", m, tp, card, group, out);
      read_per_sequence(dir / "per_sequence.csv", m, tp, card, group, out);
      if (fs::is_regular_file(dir / "moe.csv")) read_moe(dir / "moe.csv", m, tp, card, group, out);
    }
  }
  return out;
}

std::vector<std::pair<double, double>> read_llmservingsim_sampler(const std::string& truth_root,
                                                                  const std::string& folder) {
  const fs::path hw = fs::path(truth_root) / "op-profiles" / "llmservingsim" / folder;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(hw)) {
    if (entry.path().filename() == "per_sequence.csv" &&
        entry.path().parent_path().filename() == "tp1") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<double, double>> out;
  for (const fs::path& f : files) {
    const CsvTable t = CsvTable::read(f.string());
    for (size_t i = 0; i < t.rows(); ++i) {
      if (t.text(i, "layer") == "sampler") {
        out.emplace_back(t.number(i, "sequences"), t.number(i, "time_us") * 1e3);
      }
    }
  }
  return out;
}

double read_llmservingsim_small_kernels_ns(const std::string& truth_root,
                                           const std::string& folder) {
  const fs::path file = fs::path(truth_root) / "op-profiles" / "llmservingsim" / folder /
                        "meta-llama" / "Llama-3.1-8B" / "bf16" / "tp1" / "dense.csv";
  const CsvTable t = CsvTable::read(file.string());
  double layernorm = -1, rotary = -1, act = -1;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.number(i, "tokens") != 1) continue;
    const std::string& layer = t.text(i, "layer");
    const double ns = t.number(i, "time_us") * 1e3;
    if (layer == "layernorm") layernorm = ns;
    if (layer == "rotary_emb") rotary = ns;
    if (layer == "act_fn") act = ns;
  }
  if (layernorm < 0 || rotary < 0 || act < 0) {
    throw std::invalid_argument(file.string() + ": no 1-token layernorm, rotary_emb or act_fn row");
  }
  return 2 * layernorm + rotary + act;
}

std::vector<OpSample> read_h100_70b_layers(const std::string& truth_root) {
  const fs::path file = fs::path(truth_root) / "op-profiles" / "h100-llama-3.1-70b-tp4" /
                        "perf_models" / "H100" / "meta-llama" / "Llama-3.1-70B" / "tp4" /
                        "layers.csv";
  const CsvTable t = CsvTable::read(file.string());
  const ModelShape m = truth_model(truth_root, "meta-llama/Llama-3.1-70B");
  std::vector<OpSample> out;
  for (size_t i = 0; i < t.rows(); ++i) {
    const std::string& layer = t.text(i, "layer_name");
    const int64_t tp = static_cast<int64_t>(t.number(i, "tp_size"));
    const RankShape r = rank_shape(m, tp);
    double params = 0;
    if (layer == "q_proj") params = r.hidden * r.heads * r.head_dim;
    if (layer == "k_proj" || layer == "v_proj") params = r.hidden * r.kv_heads * r.head_dim;
    if (layer == "o_proj") params = r.attn_out;
    if (layer == "gate_proj" || layer == "up_proj" || layer == "down_proj") params = r.down;
    if (layer == "lm_head") params = r.vocab * r.hidden;
    if (params <= 0) continue;
    OpSample s;
    s.card = "H100-SXM";
    s.origin = "llmservingsim h100 70b";
    s.source = t.where(i);
    s.group = "Llama-3.1-70B tp4 " + layer + " (eager)";
    s.check_only = true;  // PyTorch eager modules with hooks: launch gaps included
    s.measured_ns = t.number(i, "latency(ns)");
    s.gemms = {{params, 2.0, t.number(i, "input")}};
    out.push_back(s);
  }
  return out;
}

}  // namespace llm
