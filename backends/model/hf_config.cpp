// Hugging Face config.json -> ModelConfig (see hf_config.h).
#include "backends/model/hf_config.h"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "backends/model/rope_factors.h"

namespace llm {
namespace {

using nlohmann::json;

class Reader {
 public:
  Reader(const json& j, const std::string& file) : j_(j), file_(file) {}

  [[noreturn]] void fail(const std::string& field, const std::string& detail) const {
    throw ModelFormatError(file_, field, detail);
  }

  // nullptr when the key is absent or null (transformers writes null for "use the default").
  const json* get(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

  int64_t positive_int(const char* key, std::optional<int64_t> fallback) const {
    const json* v = get(key);
    if (v == nullptr) {
      if (!fallback) fail(key, "missing");
      return *fallback;
    }
    if (!v->is_number_integer()) fail(key, "must be an integer, got " + v->dump());
    if (v->is_number_unsigned() ? v->get<uint64_t>() > static_cast<uint64_t>(kMaxModelDim)
                                : v->get<int64_t>() > kMaxModelDim) {
      fail(key, v->dump() + " is too large");
    }
    int64_t x = v->get<int64_t>();
    if (x <= 0) fail(key, "must be positive, got " + v->dump());
    return x;
  }

  double positive_number(const char* key, double fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) fail(key, "must be a number, got " + v->dump());
    double x = v->get<double>();
    if (!(x > 0)) fail(key, "must be positive, got " + v->dump());
    return x;
  }

  bool boolean(const char* key, bool fallback) const {
    const json* v = get(key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) fail(key, "must be true or false, got " + v->dump());
    return v->get<bool>();
  }

  std::optional<std::string> string(const char* key) const {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(key, "must be a string, got " + v->dump());
    return v->get<std::string>();
  }

  // A token id (or, when allow_list, a list of them); appends to out. Absent: fallback if >= 0.
  void token_ids(const char* key, int32_t fallback, bool allow_list, int64_t vocab,
                 std::vector<int32_t>& out) const {
    const json* v = get(key);
    if (v == nullptr) {
      if (fallback >= 0) out.push_back(fallback);
      return;
    }
    auto one = [&](const json& id) {
      if (!id.is_number_integer()) fail(key, "token id must be an integer, got " + id.dump());
      if (id.is_number_unsigned() ? id.get<uint64_t>() >= static_cast<uint64_t>(vocab)
                                  : (id.get<int64_t>() < 0 || id.get<int64_t>() >= vocab)) {
        fail(key,
             "token id " + id.dump() + " is outside the vocabulary of " + std::to_string(vocab));
      }
      out.push_back(static_cast<int32_t>(id.get<int64_t>()));
    };
    if (v->is_array() && allow_list) {
      for (const json& id : *v) one(id);
    } else {
      one(*v);
    }
  }

 private:
  const json& j_;
  const std::string& file_;
};

std::string architecture_of(const json& j, const Reader& r) {
  std::string from_arch, from_type;
  auto a = j.find("architectures");
  if (a != j.end() && !a->is_null()) {
    if (!a->is_array() || a->empty() || !(*a)[0].is_string()) {
      r.fail("architectures", "must be a non-empty list of class names, got " + a->dump());
    }
    const std::string& cls = (*a)[0].get_ref<const std::string&>();
    if (cls == "LlamaForCausalLM") {
      from_arch = "llama";
    } else if (cls == "Qwen2ForCausalLM") {
      from_arch = "qwen2";
    } else {
      r.fail("architectures", "unsupported architecture \"" + cls +
                                  "\" (supported: LlamaForCausalLM, Qwen2ForCausalLM)");
    }
  }
  if (std::optional<std::string> t = r.string("model_type")) {
    if (*t != "llama" && *t != "qwen2") {
      r.fail("model_type", "unsupported model_type \"" + *t + "\" (supported: llama, qwen2)");
    }
    from_type = *t;
  }
  if (!from_arch.empty() && !from_type.empty() && from_arch != from_type) {
    r.fail("model_type", "\"" + from_type + "\" contradicts architectures " + a->dump());
  }
  if (from_arch.empty() && from_type.empty()) {
    r.fail("model_type", "missing (and no architectures): cannot tell the architecture");
  }
  return from_arch.empty() ? from_type : from_arch;
}

RopeScaling rope_scaling_of(const json& j, const Reader& r) {
  RopeScaling s;
  auto it = j.find("rope_scaling");
  if (it == j.end() || it->is_null()) return s;
  if (!it->is_object()) r.fail("rope_scaling", "must be an object or null, got " + it->dump());
  auto field = [&](const char* key) { return std::string("rope_scaling.") + key; };
  std::string type;
  for (const char* key : {"rope_type", "type"}) {
    auto t = it->find(key);
    if (t != it->end() && !t->is_null()) {
      if (!t->is_string()) r.fail(field(key), "must be a string, got " + t->dump());
      type = t->get<std::string>();
      break;
    }
  }
  auto number = [&](const char* key, std::optional<double> fallback) {
    auto v = it->find(key);
    if (v == it->end() || v->is_null()) {
      if (!fallback) r.fail(field(key), "missing");
      return *fallback;
    }
    if (!v->is_number() || !(v->get<double>() > 0)) {
      r.fail(field(key), "must be a positive number, got " + v->dump());
    }
    return v->get<double>();
  };
  if (type == "default") return s;
  if (type == "linear") {
    s.type = RopeScaling::Type::kLinear;
    s.factor = number("factor", std::nullopt);
  } else if (type == "llama3") {
    s.type = RopeScaling::Type::kLlama3;
    s.factor = number("factor", std::nullopt);
    s.low_freq_factor = number("low_freq_factor", std::nullopt);
    s.high_freq_factor = number("high_freq_factor", std::nullopt);
    double orig = number("original_max_position_embeddings", std::nullopt);
    // The range first: casting a double beyond int64 is undefined behaviour.
    if (orig > static_cast<double>(kMaxModelDim) || orig != std::floor(orig)) {
      r.fail(field("original_max_position_embeddings"), "must be an integer");
    }
    s.original_max_position_embeddings = static_cast<int64_t>(orig);
    if (!(s.high_freq_factor > s.low_freq_factor)) {
      r.fail(field("high_freq_factor"), "must exceed low_freq_factor");
    }
  } else {
    r.fail(field("rope_type"),
           "unsupported RoPE scaling \"" + type + "\" (supported: default, linear, llama3)");
  }
  return s;
}

}  // namespace

ModelConfig parse_hf_config(const json& j, const std::string& file) {
  if (!j.is_object()) throw ModelFormatError(file, "", "config is not a JSON object");
  Reader r(j, file);
  ModelConfig c;
  c.architecture = architecture_of(j, r);
  const bool qwen2 = c.architecture == "qwen2";

  c.vocab_size = r.positive_int("vocab_size", std::nullopt);
  c.hidden_size = r.positive_int("hidden_size", std::nullopt);
  c.intermediate_size = r.positive_int("intermediate_size", std::nullopt);
  c.num_hidden_layers = r.positive_int("num_hidden_layers", std::nullopt);
  c.num_attention_heads = r.positive_int("num_attention_heads", std::nullopt);
  c.num_key_value_heads = r.positive_int("num_key_value_heads", c.num_attention_heads);
  if (r.get("head_dim") == nullptr && c.hidden_size % c.num_attention_heads != 0) {
    r.fail("hidden_size", std::to_string(c.hidden_size) + " is not divisible by " +
                              "num_attention_heads " + std::to_string(c.num_attention_heads) +
                              " and head_dim is not given");
  }
  c.head_dim = r.positive_int("head_dim", c.hidden_size / c.num_attention_heads);
  if (c.head_dim % 2 != 0)
    r.fail("head_dim", "must be even for RoPE, got " + std::to_string(c.head_dim));
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    r.fail("num_key_value_heads", std::to_string(c.num_key_value_heads) +
                                      " does not divide num_attention_heads " +
                                      std::to_string(c.num_attention_heads));
  }
  c.rms_norm_eps = r.positive_number("rms_norm_eps", 1e-6);
  c.rope_theta = r.positive_number("rope_theta", 10000.0);
  c.rope_scaling = rope_scaling_of(j, r);
  if (c.rope_scaling.type == RopeScaling::Type::kLlama3) {
    try {
      c.rope_freq_factors = llama3_rope_freq_factors(c.head_dim, c.rope_theta, c.rope_scaling);
    } catch (const std::invalid_argument& e) {
      r.fail("rope_scaling", e.what());
    }
  }
  c.max_position_embeddings = r.positive_int("max_position_embeddings", qwen2 ? 32768 : 2048);
  c.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
  // Qwen2Attention always builds q/k/v with bias, whatever the config says.
  c.attention_bias = qwen2 ? true : r.boolean("attention_bias", false);
  c.mlp_bias = qwen2 ? false : r.boolean("mlp_bias", false);
  if (std::optional<std::string> act = r.string("hidden_act"); act && *act != "silu") {
    r.fail("hidden_act", "unsupported activation \"" + *act + "\" (supported: silu)");
  }
  if (qwen2 && r.boolean("use_sliding_window", false)) {
    r.fail("use_sliding_window", "sliding-window attention is not supported");
  }
  std::vector<int32_t> bos;
  r.token_ids("bos_token_id", qwen2 ? -1 : 1, false, c.vocab_size, bos);
  c.bos_token_id = bos.empty() ? -1 : bos[0];
  r.token_ids("eos_token_id", qwen2 ? -1 : 2, true, c.vocab_size, c.eos_token_ids);
  std::optional<std::string> dtype = r.string("torch_dtype");
  if (!dtype) dtype = r.string("dtype");  // transformers >= 4.56 writes "dtype"
  c.torch_dtype = dtype.value_or("");
  return c;
}

ModelConfig parse_hf_config_text(std::string_view text, const std::string& file) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    throw ModelFormatError(file, "", std::string("not valid JSON: ") + e.what());
  }
  return parse_hf_config(j, file);
}

ModelConfig load_hf_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelFormatError(path, "", "cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_hf_config_text(ss.str(), path);
}

}  // namespace llm

namespace llm {

nlohmann::json hf_config_to_json(const ModelConfig& c) {
  using nlohmann::json;
  const bool qwen2 = c.architecture == "qwen2";
  json j = json::object();
  j["architectures"] = json::array({qwen2 ? "Qwen2ForCausalLM" : "LlamaForCausalLM"});
  j["model_type"] = c.architecture;
  j["vocab_size"] = c.vocab_size;
  j["hidden_size"] = c.hidden_size;
  j["intermediate_size"] = c.intermediate_size;
  j["num_hidden_layers"] = c.num_hidden_layers;
  j["num_attention_heads"] = c.num_attention_heads;
  j["num_key_value_heads"] = c.num_key_value_heads;
  j["head_dim"] = c.head_dim;
  j["hidden_act"] = "silu";
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["rms_norm_eps"] = c.rms_norm_eps;
  j["rope_theta"] = c.rope_theta;
  if (!c.rope_freq_factors.empty()) {
    // config.json states llama3's parameters, never the factors: they must be what those give.
    if (c.rope_scaling.type != RopeScaling::Type::kLlama3 ||
        c.rope_freq_factors != llama3_rope_freq_factors(c.head_dim, c.rope_theta, c.rope_scaling)) {
      throw std::invalid_argument(
          "config.json writer: rope_freq_factors other than llama3 rope_scaling's cannot be "
          "expressed in config.json");
    }
  }
  switch (c.rope_scaling.type) {
    case RopeScaling::Type::kNone:
      j["rope_scaling"] = nullptr;
      break;
    case RopeScaling::Type::kLinear:
      j["rope_scaling"] = {{"rope_type", "linear"}, {"factor", c.rope_scaling.factor}};
      break;
    case RopeScaling::Type::kLlama3:
      j["rope_scaling"] = {
          {"rope_type", "llama3"},
          {"factor", c.rope_scaling.factor},
          {"low_freq_factor", c.rope_scaling.low_freq_factor},
          {"high_freq_factor", c.rope_scaling.high_freq_factor},
          {"original_max_position_embeddings", c.rope_scaling.original_max_position_embeddings}};
      break;
  }
  j["tie_word_embeddings"] = c.tie_word_embeddings;
  if (qwen2) {
    j["use_sliding_window"] = false;
  } else {
    j["attention_bias"] = c.attention_bias;
    j["mlp_bias"] = c.mlp_bias;
  }
  j["bos_token_id"] = c.bos_token_id >= 0 ? json(c.bos_token_id) : json(nullptr);
  if (c.eos_token_ids.size() == 1) {
    j["eos_token_id"] = c.eos_token_ids[0];
  } else if (c.eos_token_ids.empty()) {
    j["eos_token_id"] = nullptr;
  } else {
    j["eos_token_id"] = c.eos_token_ids;
  }
  if (!c.torch_dtype.empty()) j["torch_dtype"] = c.torch_dtype;
  j["use_cache"] = true;
  return j;
}

}  // namespace llm
