#include "sim/cli/make_model_command.h"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/formats/gguf_reader.h"
#include "backends/model/gguf_model_config.h"
#include "backends/model/model_weights.h"
#include "backends/tokenizer/chat_template.h"
#include "backends/tokenizer/hf_tokenizer.h"
#include "backends/tokenizer/tokenizer.h"
#include "core/flag_set.h"

namespace llm {
namespace {

constexpr const char* kMakeModelUsage =
    "usage: llmsim make-model --arch llama|qwen2 --vocab FILE.gguf --dim N --layers N --heads N\n"
    "                         [--kv-heads N] [--head-dim N] [--ffn N] [--seed N]\n"
    "                         [--rope-theta X] [--rms-eps X] [--max-position-embeddings N]\n"
    "                         [--rope-scaling none|llama3] [--rope-original-context N]\n"
    "                         [--tied] [--peaky] [--dtype f32|f16|bf16]\n"
    "                         [--chat-template llama2|llama3|chatml|none] --out DIR\n"
    "  writes a seeded random model as DIR/model.gguf and DIR/model.safetensors + config.json\n"
    "  + tokenizer.json + tokenizer_config.json, with the vocabulary (and bos/eos ids) of\n"
    "  FILE.gguf and a Jinja chat template (tokenizer.chat_template; none: no template).\n"
    "  Default --chat-template: FILE's own template if it has one, else llama2 for an SPM\n"
    "  (llama) vocabulary, llama3 for llama-bpe, chatml for qwen2, none otherwise. Defaults:\n"
    "  --kv-heads = --heads,\n"
    "  --head-dim = dim/heads, --ffn = 8/3*dim rounded up to a multiple of 64, --seed 1,\n"
    "  --rope-theta from FILE's <arch>.rope.freq_base (else 10000), --rms-eps 1e-5 (llama) or\n"
    "  1e-6 (qwen2), --max-position-embeddings 2048, --dtype f32, --rope-scaling none.\n"
    "  --rope-scaling llama3: Llama 3.1's RoPE scaling (factor 8, low_freq_factor 1,\n"
    "  high_freq_factor 4) over an original context of --rope-original-context (default\n"
    "  max-position-embeddings / 4). --peaky multiplies the output head by 8 (4 for --tied):\n"
    "  a sharply peaked softmax, so temperature-1 sampling is near-greedy (it widens absolute\n"
    "  logit gaps, not the relative ones that decide greedy near-ties).\n";

// --dim, --layers, ...: sizes of at least 1 and at most 2^31.
constexpr int64_t kMaxSize = int64_t{1} << 31;

MakeModelOptions parse_args(const std::vector<std::string>& args) {
  MakeModelOptions o;
  auto positive_number = [](double& out) {
    return [&out](const std::string& flag, const std::string& v) {
      out = parse_double_above_flag(flag, v, 0);
    };
  };
  FlagSet flags("llmsim make-model");
  flags.choice({"--arch"}, o.arch, {"llama", "qwen2"})
      .text({"--vocab"}, o.vocab_path)
      .text({"--out"}, o.out_dir)
      .integer({"--dim"}, o.dim, 1, kMaxSize)
      .integer({"--layers"}, o.layers, 1, kMaxSize)
      .integer({"--heads"}, o.heads, 1, kMaxSize)
      .integer({"--kv-heads"}, o.kv_heads, 1, kMaxSize)
      .integer({"--head-dim"}, o.head_dim, 1, kMaxSize)
      .integer({"--ffn"}, o.ffn, 1, kMaxSize)
      .value({"--seed"}, [&o](const std::string& flag,
                              const std::string& v) { o.seed = parse_uint_flag(flag, v); })
      .value({"--rope-theta"}, positive_number(o.rope_theta))
      .value({"--rms-eps"}, positive_number(o.rms_eps))
      .integer({"--max-position-embeddings"}, o.max_position_embeddings, 1, kMaxSize)
      .value({"--rope-scaling"},
             [&o](const std::string& flag, const std::string& v) {
               o.rope_scaling_llama3 = parse_choice_flag(flag, v, {"none", "llama3"}) == "llama3";
             })
      .integer({"--rope-original-context"}, o.rope_original_context, 1, kMaxSize)
      .choice({"--chat-template"}, o.chat_template, {"llama2", "llama3", "chatml", "none"})
      .boolean({"--tied"}, o.tied)
      .boolean({"--peaky"}, o.peaky)
      .value({"--dtype"}, [&o](const std::string& flag, const std::string& v) {
        o.dtype = *parse_weight_type(parse_choice_flag(flag, v, {"f32", "f16", "bf16"}));
      });
  flags.parse(args);
  for (const auto& [flag, missing] : {std::pair{"--arch", o.arch.empty()},
                                      {"--vocab", o.vocab_path.empty()},
                                      {"--dim", o.dim == 0},
                                      {"--layers", o.layers == 0},
                                      {"--heads", o.heads == 0},
                                      {"--out", o.out_dir.empty()}}) {
    if (missing) throw UsageError(std::string(flag) + ": required");
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
    throw UsageError("--head-dim: must be even for RoPE, got " + std::to_string(o.head_dim));
  }
  if (o.rope_original_context != 0 && !o.rope_scaling_llama3) {
    throw UsageError("--rope-original-context: needs --rope-scaling llama3");
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
  if (wants_help(args)) {
    out << kMakeModelUsage;
    return 0;
  }
  MakeModelOptions o;
  try {
    o = parse_args(args);
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim make-model", e);
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
    // Every file written, in order, as the writers report them: the message lists them all.
    std::vector<std::string> written = {o.out_dir + "/model.gguf"};
    write_gguf_model(weights, *vocab, written[0], o.dtype, chat_template);
    for (std::string& path : write_safetensors_model(weights, o.out_dir, o.dtype)) {
      written.push_back(std::move(path));
    }
    const std::string& jinja = chat_template ? *chat_template : tokenizer->chat_template_text();
    for (std::string& path :
         write_hf_tokenizer_files(tokenizer->vocab(), jinja, o.out_dir + "/tokenizer.json")) {
      written.push_back(std::move(path));
    }
    const std::optional<ChatTemplateKind> kind = detect_chat_template(jinja);
    out << "wrote";
    for (size_t i = 0; i < written.size(); ++i) out << (i == 0 ? " " : ", ") << written[i];
    out << ": " << o.arch << ", " << o.layers << " layers, dim " << o.dim << ", heads " << o.heads
        << "/" << o.kv_heads << " x " << o.head_dim << ", ffn " << o.ffn << ", vocab "
        << config.vocab_size << (o.rope_scaling_llama3 ? ", llama3 RoPE scaling" : "")
        << (o.tied ? ", tied" : "") << (o.peaky ? ", peaky" : "") << ", chat template "
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
