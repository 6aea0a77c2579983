#include "backends/model/make_model_command.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "backends/model/chat_template.h"
#include "backends/model/gguf_model_config.h"
#include "backends/model/gguf_reader.h"
#include "backends/model/hf_tokenizer.h"
#include "backends/model/model_weights.h"
#include "backends/model/tokenizer.h"

namespace llm {
namespace {

constexpr const char* kUsage =
    "usage: llmsim make-model --arch llama|qwen2 --vocab FILE.gguf --dim N --layers N --heads N\n"
    "                         [--kv-heads N] [--head-dim N] [--ffn N] [--seed N]\n"
    "                         [--rope-theta X] [--rms-eps X] [--max-position-embeddings N]\n"
    "                         [--rope-scaling none|llama3] [--rope-original-context N]\n"
    "                         [--tied] [--peaky] [--dtype f32|f16|bf16]\n"
    "                         [--chat-template llama2|llama3|chatml|none] --out DIR\n"
    "  writes a seeded random model as DIR/model.gguf and DIR/model.safetensors + config.json\n"
    "  + tokenizer.json, with the vocabulary (and bos/eos ids) of FILE.gguf and a Jinja chat\n"
    "  template (tokenizer.chat_template; none: no template). Default --chat-template: FILE's own\n"
    "  template if it has one, else llama2 for an SPM (llama) vocabulary, llama3 for llama-bpe,\n"
    "  chatml for qwen2, none otherwise. Defaults: --kv-heads = --heads,\n"
    "  --head-dim = dim/heads, --ffn = 8/3*dim rounded up to a multiple of 64, --seed 1,\n"
    "  --rope-theta from FILE's <arch>.rope.freq_base (else 10000), --rms-eps 1e-5 (llama) or\n"
    "  1e-6 (qwen2), --max-position-embeddings 2048, --dtype f32, --rope-scaling none.\n"
    "  --rope-scaling llama3: Llama 3.1's RoPE scaling (factor 8, low_freq_factor 1,\n"
    "  high_freq_factor 4) over an original context of --rope-original-context (default\n"
    "  max-position-embeddings / 4). --peaky multiplies the output head by 8 (4 for --tied):\n"
    "  a sharply peaked softmax, so temperature-1 sampling is near-greedy (it widens absolute\n"
    "  logit gaps, not the relative ones that decide greedy near-ties).\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t parse_positive(const std::string& flag, const std::string& v) {
  int64_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x <= 0 || x > (int64_t{1} << 31)) {
    throw UsageError(flag + " needs a positive integer, got '" + v + "'");
  }
  return x;
}

uint64_t parse_seed(const std::string& v) {
  uint64_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) {
    throw UsageError("--seed needs a non-negative integer, got '" + v + "'");
  }
  return x;
}

double parse_positive_double(const std::string& flag, const std::string& v) {
  double x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || !(x > 0) || !std::isfinite(x)) {
    throw UsageError(flag + " needs a positive number, got '" + v + "'");
  }
  return x;
}

MakeModelOptions parse_args(const std::vector<std::string>& args) {
  MakeModelOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::optional<std::string> inline_value;
    if (const size_t eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inline_value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) throw UsageError(flag + " needs a value");
      return args[++i];
    };
    auto no_value = [&] {
      if (inline_value) throw UsageError(flag + " takes no value");
    };
    if (flag == "--arch") {
      o.arch = value();
      if (o.arch != "llama" && o.arch != "qwen2") {
        throw UsageError("--arch must be llama or qwen2, got '" + o.arch + "'");
      }
    } else if (flag == "--vocab") {
      o.vocab_path = value();
    } else if (flag == "--out") {
      o.out_dir = value();
    } else if (flag == "--dim") {
      o.dim = parse_positive(flag, value());
    } else if (flag == "--layers") {
      o.layers = parse_positive(flag, value());
    } else if (flag == "--heads") {
      o.heads = parse_positive(flag, value());
    } else if (flag == "--kv-heads") {
      o.kv_heads = parse_positive(flag, value());
    } else if (flag == "--head-dim") {
      o.head_dim = parse_positive(flag, value());
    } else if (flag == "--ffn") {
      o.ffn = parse_positive(flag, value());
    } else if (flag == "--seed") {
      o.seed = parse_seed(value());
    } else if (flag == "--rope-theta") {
      o.rope_theta = parse_positive_double(flag, value());
    } else if (flag == "--rms-eps") {
      o.rms_eps = parse_positive_double(flag, value());
    } else if (flag == "--max-position-embeddings") {
      o.max_position_embeddings = parse_positive(flag, value());
    } else if (flag == "--rope-scaling") {
      const std::string v = value();
      if (v != "none" && v != "llama3") {
        throw UsageError("--rope-scaling must be none or llama3, got '" + v + "'");
      }
      o.rope_scaling_llama3 = v == "llama3";
    } else if (flag == "--rope-original-context") {
      o.rope_original_context = parse_positive(flag, value());
    } else if (flag == "--chat-template") {
      o.chat_template = value();
      if (o.chat_template != "none" && !parse_chat_template_name(o.chat_template)) {
        throw UsageError("--chat-template must be llama2, llama3, chatml or none, got '" +
                         o.chat_template + "'");
      }
    } else if (flag == "--tied") {
      no_value();
      o.tied = true;
    } else if (flag == "--peaky") {
      no_value();
      o.peaky = true;
    } else if (flag == "--dtype") {
      const std::string v = value();
      const std::optional<WeightType> t = parse_weight_type(v);
      if (!t || *t == WeightType::kQ8_0) {
        throw UsageError("--dtype must be f32, f16 or bf16, got '" + v + "'");
      }
      o.dtype = *t;
    } else {
      throw UsageError("unknown argument '" + args[i] + "'");
    }
  }
  for (const auto& [flag, missing] : {std::pair{"--arch", o.arch.empty()},
                                      {"--vocab", o.vocab_path.empty()},
                                      {"--dim", o.dim == 0},
                                      {"--layers", o.layers == 0},
                                      {"--heads", o.heads == 0},
                                      {"--out", o.out_dir.empty()}}) {
    if (missing) throw UsageError(std::string(flag) + " is required");
  }
  if (o.kv_heads == 0) o.kv_heads = o.heads;
  if (o.heads % o.kv_heads != 0) {
    throw UsageError("--kv-heads " + std::to_string(o.kv_heads) + " does not divide --heads " +
                     std::to_string(o.heads));
  }
  if (o.head_dim == 0) {
    if (o.dim % o.heads != 0) {
      throw UsageError("--dim " + std::to_string(o.dim) + " is not divisible by --heads " +
                       std::to_string(o.heads) + " (or give --head-dim)");
    }
    o.head_dim = o.dim / o.heads;
  }
  if (o.head_dim % 2 != 0) {
    throw UsageError("--head-dim must be even for RoPE, got " + std::to_string(o.head_dim));
  }
  if (o.rope_original_context != 0 && !o.rope_scaling_llama3) {
    throw UsageError("--rope-original-context needs --rope-scaling llama3");
  }
  if (o.rope_scaling_llama3 && o.rope_original_context == 0) {
    o.rope_original_context = std::max<int64_t>(1, o.max_position_embeddings / 4);
  }
  if (o.ffn == 0) o.ffn = default_ffn_size(o.dim);
  if (o.rms_eps == 0) o.rms_eps = o.arch == "qwen2" ? 1e-6 : 1e-5;
  return o;
}

// A token id metadata key of the vocabulary; -1 when absent.
int32_t vocab_token_id(const GgufFile& vocab, const char* key) {
  const std::optional<uint32_t> id = vocab.find_u32(key);
  return id ? static_cast<int32_t>(*id) : -1;
}

ModelConfig config_of(const MakeModelOptions& o, const GgufFile& vocab) {
  ModelConfig c;
  c.architecture = o.arch;
  if (!vocab.has("tokenizer.ggml.tokens")) {
    throw ModelFormatError(vocab.name(), "tokenizer.ggml.tokens", "missing (not a vocabulary)");
  }
  c.vocab_size = static_cast<int64_t>(vocab.get_array("tokenizer.ggml.tokens").size());
  c.hidden_size = o.dim;
  c.intermediate_size = o.ffn;
  c.num_hidden_layers = o.layers;
  c.num_attention_heads = o.heads;
  c.num_key_value_heads = o.kv_heads;
  c.head_dim = o.head_dim;
  c.rms_norm_eps = o.rms_eps;
  c.rope_theta = o.rope_theta;
  if (c.rope_theta == 0) {
    const std::string key =
        vocab.find_string("general.architecture").value_or("") + ".rope.freq_base";
    c.rope_theta = vocab.has(key) ? float_to_shortest_double(vocab.get_f32(key)) : 10000.0;
  }
  c.max_position_embeddings = o.max_position_embeddings;
  if (o.rope_scaling_llama3) {
    c.rope_scaling = {RopeScaling::Type::kLlama3, 8.0, 1.0, 4.0, o.rope_original_context};
  }
  c.tie_word_embeddings = o.tied;
  c.attention_bias = o.arch == "qwen2";
  c.bos_token_id = vocab_token_id(vocab, "tokenizer.ggml.bos_token_id");
  for (const char* key : {"tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"}) {
    const int32_t id = vocab_token_id(vocab, key);
    if (id >= 0 && (c.eos_token_ids.empty() || c.eos_token_ids[0] != id)) {
      c.eos_token_ids.push_back(id);
    }
  }
  for (int32_t id : c.eos_token_ids) {
    if (id >= c.vocab_size) {
      throw ModelFormatError(vocab.name(), "tokenizer.ggml.eos_token_id",
                             "id " + std::to_string(id) + " is outside the vocabulary");
    }
  }
  if (c.bos_token_id >= c.vocab_size) {
    throw ModelFormatError(vocab.name(), "tokenizer.ggml.bos_token_id",
                           "id " + std::to_string(c.bos_token_id) + " is outside the vocabulary");
  }
  c.torch_dtype = o.dtype == WeightType::kF16    ? "float16"
                  : o.dtype == WeightType::kBF16 ? "bfloat16"
                                                 : "float32";
  return c;
}

// The Jinja text for o.chat_template; nullopt keeps the vocabulary's own template.
std::optional<std::string> chat_template_text_of(const MakeModelOptions& o, const GgufFile& vocab) {
  std::string name = o.chat_template;
  if (name.empty()) {
    if (vocab.find_string("tokenizer.chat_template").value_or("") != "") return std::nullopt;
    name = default_chat_template_name(vocab.find_string("tokenizer.ggml.model").value_or(""),
                                      vocab.find_string("tokenizer.ggml.pre").value_or(""));
  }
  const std::optional<ChatTemplateKind> kind = parse_chat_template_name(name);
  return kind ? chat_template_jinja(*kind) : "";
}

}  // namespace

std::string default_chat_template_name(const std::string& ggml_model, const std::string& ggml_pre) {
  if (ggml_model == "llama") return "llama2";
  if (ggml_model == "gpt2" && ggml_pre == "llama-bpe") return "llama3";
  if (ggml_model == "gpt2" && ggml_pre == "qwen2") return "chatml";
  return "none";
}

int64_t default_ffn_size(int64_t dim) {
  const int64_t raw = (8 * dim + 2) / 3;  // round(8/3 * dim)
  return (raw + 63) / 64 * 64;
}

int run_make_model_command(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
  }
  MakeModelOptions o;
  try {
    o = parse_args(args);
  } catch (const UsageError& e) {
    err << "llmsim make-model: " << e.what() << "\n" << kUsage;
    return 2;
  }
  ModelConfig config;
  std::optional<GgufFile> vocab;
  std::unique_ptr<Tokenizer> tokenizer;
  std::optional<std::string> chat_template;
  try {
    vocab.emplace(GgufFile::open(o.vocab_path));
    config = config_of(o, *vocab);
    tokenizer = Tokenizer::from_gguf(*vocab);
    chat_template = chat_template_text_of(o, *vocab);
  } catch (const std::exception& e) {  // ModelFormatError or TokenizerError
    err << "llmsim make-model: --vocab: " << e.what() << "\n";
    return 2;
  }
  try {
    ModelWeights weights = random_model_weights(config, o.seed, o.peaky);
    round_weights_to(weights, o.dtype);
    std::filesystem::create_directories(o.out_dir);
    write_gguf_model(weights, *vocab, o.out_dir + "/model.gguf", o.dtype, chat_template);
    write_safetensors_model(weights, o.out_dir, o.dtype);
    const std::string& jinja = chat_template ? *chat_template : tokenizer->chat_template_text();
    write_hf_tokenizer_files(tokenizer->vocab(), jinja, o.out_dir + "/tokenizer.json");
    const std::optional<ChatTemplateKind> kind = detect_chat_template(jinja);
    out << "wrote " << o.out_dir << "/model.gguf, " << o.out_dir << "/model.safetensors, "
        << o.out_dir << "/config.json, " << o.out_dir << "/tokenizer.json: " << o.arch << ", "
        << o.layers << " layers, dim " << o.dim << ", heads " << o.heads << "/" << o.kv_heads
        << " x " << o.head_dim << ", ffn " << o.ffn << ", vocab " << config.vocab_size
        << (o.rope_scaling_llama3 ? ", llama3 RoPE scaling" : "") << (o.tied ? ", tied" : "")
        << (o.peaky ? ", peaky" : "") << ", chat template "
        << (kind            ? chat_template_name(*kind)
            : jinja.empty() ? "none"
                            : "unrecognised")
        << ", " << weight_type_name(o.dtype) << ", " << weights.num_parameters()
        << " parameters, seed " << o.seed << "\n";
  } catch (const std::exception& e) {
    err << "llmsim make-model: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace llm
