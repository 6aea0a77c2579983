// Reader of BLIS's H100 kernel profiles (blis/kernel-profiles/*.yaml), and the per-rank shapes
// every profile reader uses.
// Thread-safety: plain functions.
#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/gpu_fit/profile_readers.h"
#include "calibrate/gpu_fit/simple_yaml.h"
#include "calibrate/gpu_fit/truth_models.h"

namespace llm {

RankShape rank_shape(const ModelShape& m, int64_t tp) {
  const double t = static_cast<double>(tp);
  RankShape r;
  r.hidden = static_cast<double>(m.hidden);
  r.heads = static_cast<double>(m.heads) / t;
  r.kv_heads = static_cast<double>(std::max<int64_t>(m.kv_heads / tp, 1));
  r.head_dim = static_cast<double>(m.head_dim);
  r.qkv = r.hidden * (r.heads + 2 * r.kv_heads) * r.head_dim;
  r.attn_out = r.heads * r.head_dim * r.hidden;
  r.gate_up = 2.0 * r.hidden * static_cast<double>(m.ffn) / t;
  r.down = r.hidden * static_cast<double>(m.ffn) / t;
  r.kv_bytes_per_token = 2.0 * r.kv_heads * r.head_dim * 2.0;
  r.vocab = static_cast<double>(m.vocab) / t;
  return r;
}

namespace {

using nlohmann::json;

const json& field(const json& obj, const std::string& key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) {
    throw std::invalid_argument(where + ": missing field '" + key + "'");
  }
  return obj[key];
}

std::vector<double> numbers(const json& v, const std::string& where) {
  if (!v.is_array()) throw std::invalid_argument(where + ": expected a list of numbers");
  std::vector<double> out;
  for (const json& x : v) {
    if (!x.is_number()) throw std::invalid_argument(where + ": expected a list of numbers");
    out.push_back(x.get<double>());
  }
  return out;
}

// A table's rows (rows x columns of latency_us), checked against its axes.
std::vector<std::vector<double>> grid(const json& table, const std::string& rows_key,
                                      const std::string& cols_key, const std::string& where,
                                      std::vector<double>& rows, std::vector<double>& cols) {
  rows = numbers(field(table, rows_key, where), where + "." + rows_key);
  cols = numbers(field(table, cols_key, where), where + "." + cols_key);
  const json& lat = field(table, "latency_us", where);
  if (!lat.is_array() || lat.size() != rows.size()) {
    throw std::invalid_argument(where + ".latency_us: expected " + std::to_string(rows.size()) +
                                " rows");
  }
  std::vector<std::vector<double>> out;
  for (const json& row : lat) {
    out.push_back(numbers(row, where + ".latency_us"));
    if (out.back().size() != cols.size()) {
      throw std::invalid_argument(where + ".latency_us: expected " + std::to_string(cols.size()) +
                                  " columns");
    }
  }
  return out;
}

// A table of latency against tokens (gemm, logits_gemm, allreduce, moe_compute): its rows.
std::vector<std::pair<double, double>> token_table(const json& y, const std::string& key,
                                                   const std::string& file) {
  const json& t = field(y, key, file);
  const std::vector<double> tokens = numbers(field(t, "tokens", file), file + ": " + key);
  const std::vector<double> lat = numbers(field(t, "latency_us", file), file + ": " + key);
  if (tokens.size() != lat.size()) {
    throw std::invalid_argument(file + ": " + key + ": tokens and latency_us differ in length");
  }
  std::vector<std::pair<double, double>> rows;
  for (size_t i = 0; i < tokens.size(); ++i) rows.emplace_back(tokens[i], lat[i]);
  return rows;
}

}  // namespace

std::vector<OpSample> read_blis_kernel_profiles(const std::string& truth_root) {
  const std::filesystem::path dir = std::filesystem::path(truth_root) / "blis" / "kernel-profiles";
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  }
  if (ec || files.empty()) throw std::invalid_argument(dir.string() + ": no kernel profiles");
  std::sort(files.begin(), files.end());
  std::vector<OpSample> out;
  std::set<std::pair<std::string, int64_t>> seen;
  for (const std::string& file : files) {
    const json y = read_simple_yaml(file);
    const json& model_name = field(y, "model", file);
    const json& tp_value = field(y, "tp", file);
    if (!model_name.is_string() || !tp_value.is_number_integer()) {
      throw std::invalid_argument(file + ": 'model' must be a name and 'tp' an integer");
    }
    const int64_t tp = tp_value.get<int64_t>();
    if (tp < 1) throw std::invalid_argument(file + ": 'tp' must be >= 1");
    if (!seen.insert({model_name.get<std::string>(), tp}).second) continue;  // same tables
    const ModelShape m = truth_model(truth_root, model_name.get<std::string>());
    const RankShape r = rank_shape(m, tp);
    const std::string group = model_short_name(m.name) + " tp" + std::to_string(tp);
    const double attention_bytes = static_cast<double>(attention_weight_bytes(m));
    const double mlp_bytes = static_cast<double>(mlp_weight_bytes(m));
    const bool fp8 = mlp_bytes < 2 || attention_bytes < 2;
    auto sample = [&](const std::string& table, OpKind kind, double measured_us, size_t i) {
      OpSample s;
      s.card = "H100-SXM";
      s.origin = "blis kernel profiles";
      s.group = group + " " + table;
      s.source = file + ": " + table + "[" + std::to_string(i) + "]";
      s.kind = kind;
      s.measured_ns = measured_us * 1e3;
      return s;
    };

    // The layer's GEMMs: attention projections and the dense MLP. Left out for MoE models: the
    // profiles count Llama-4-Scout as half dense layers (it has none), so what their "gemm" row
    // timed is not known.
    if (!is_moe(m)) {
      const auto rows = token_table(y, "gemm", file);
      for (size_t i = 0; i < rows.size(); ++i) {
        OpSample s = sample("gemm", fp8 ? OpKind::kFp8Gemm : OpKind::kGemm, rows[i].second, i);
        const double n = rows[i].first;
        s.gemms = {{r.qkv, attention_bytes, n},
                   {r.attn_out, attention_bytes, n},
                   {r.gate_up, mlp_bytes, n},
                   {r.down, mlp_bytes, n}};
        out.push_back(s);
      }
    }
    {
      const auto rows = token_table(y, "logits_gemm", file);
      for (size_t i = 0; i < rows.size(); ++i) {
        OpSample s = sample("lm_head", OpKind::kGemm, rows[i].second, i);
        s.gemms = {{r.vocab * r.hidden, 2.0, rows[i].first}};
        out.push_back(s);
      }
    }
    {
      std::vector<double> contexts, batches;
      const auto lat = grid(field(y, "generation_attention", file), "context", "tokens",
                            file + ": generation_attention", contexts, batches);
      for (size_t i = 0; i < contexts.size(); ++i) {
        for (size_t j = 0; j < batches.size(); ++j) {
          OpSample s = sample("decode_attention", OpKind::kDecodeAttention, lat[i][j],
                              i * batches.size() + j);
          s.decode_sequences = batches[j];
          s.decode_kv_bytes = batches[j] * contexts[i] * r.kv_bytes_per_token;
          out.push_back(s);
        }
      }
    }
    {
      std::vector<double> lengths, batches;
      const auto lat = grid(field(y, "context_attention", file), "isl", "batch_size",
                            file + ": context_attention", lengths, batches);
      for (size_t i = 0; i < lengths.size(); ++i) {
        for (size_t j = 0; j < batches.size(); ++j) {
          OpSample s = sample("prefill_attention", OpKind::kPrefillAttention, lat[i][j],
                              i * batches.size() + j);
          s.prefill_tokens = batches[j] * lengths[i];
          s.heads = r.heads;
          s.head_dim = r.head_dim;
          s.pairs = batches[j] * lengths[i] * lengths[i] / 2.0;
          out.push_back(s);
        }
      }
    }
    if (tp > 1 && y.contains("allreduce")) {
      const auto rows = token_table(y, "allreduce", file);
      for (size_t i = 0; i < rows.size(); ++i) {
        OpSample s = sample("allreduce", OpKind::kAllreduce, rows[i].second, i);
        s.gpus = tp;
        s.bytes = rows[i].first * r.hidden * 2.0;
        out.push_back(s);
      }
    }
    if (is_moe(m) && y.contains("moe_compute")) {
      const auto rows = token_table(y, "moe_compute", file);
      const double experts = static_cast<double>(m.num_experts);
      const double top_k = static_cast<double>(m.experts_per_token);
      const double expert = r.hidden * static_cast<double>(m.expert_ffn) / static_cast<double>(tp);
      for (size_t i = 0; i < rows.size(); ++i) {
        OpSample s =
            sample("moe", mlp_bytes < 2 ? OpKind::kFp8Gemm : OpKind::kGemm, rows[i].second, i);
        const double n = rows[i].first;
        // The profile's tokens all route to the same experts: its times stay flat up to 128
        // tokens, where even 8 routed tokens would touch several of the 16 experts.
        const double touched = std::min(top_k, experts);
        const double per_expert = n * top_k / touched;
        s.gemms = {{r.hidden * experts, 2.0, n},
                   {touched * 2.0 * expert, mlp_bytes, per_expert},
                   {touched * expert, mlp_bytes, per_expert}};
        out.push_back(s);
      }
    }
  }
  return out;
}

}  // namespace llm
