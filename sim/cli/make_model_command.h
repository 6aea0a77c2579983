// `llmsim make-model`: writes one seeded random Llama-family model in both formats, with a real
// vocabulary: DIR/model.gguf (tokenizer copied from the vocabulary GGUF), DIR/model.safetensors,
// DIR/config.json and DIR/tokenizer.json + tokenizer_config.json. Both formats carry a chat
// template (chat_template_jinja of --chat-template), so llmserve chats without being told one.
// Loading either gives identical weights (load_model_weights).
//   llmsim make-model --arch llama|qwen2 --vocab FILE.gguf --dim N --layers N --heads N
//                     [--kv-heads N] [--head-dim N] [--ffn N] [--seed N] [--rope-theta X]
//                     [--rms-eps X] [--max-position-embeddings N] [--rope-scaling none|llama3]
//                     [--rope-original-context N] [--tied] [--peaky]
//                     [--dtype f32|f16|bf16] [--chat-template llama2|llama3|chatml|none] --out DIR
// Exit codes: 0 ok, 2 bad usage (message names the flag) or unusable vocabulary, 1 I/O failure.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "backends/model/model_config.h"
#include "backends/model/model_writer.h"

namespace llm {

struct MakeModelOptions {
  std::string arch;
  std::string vocab_path;
  std::string out_dir;
  int64_t dim = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // 0: = heads
  int64_t head_dim = 0;  // 0: dim / heads
  int64_t ffn = 0;       // 0: 8/3 * dim rounded up to a multiple of 64
  uint64_t seed = 1;
  double rope_theta = 0;  // 0: the vocabulary file's <arch>.rope.freq_base, else 10000
  double rms_eps = 0;     // 0: 1e-5 (llama) or 1e-6 (qwen2)
  int64_t max_position_embeddings = 2048;
  // Llama 3.1 RoPE scaling (factor 8, low 1, high 4) over rope_original_context positions
  // (0: max_position_embeddings / 4).
  bool rope_scaling_llama3 = false;
  int64_t rope_original_context = 0;
  bool tied = false;
  bool peaky = false;
  WeightType dtype = WeightType::kF32;
  // "llama2", "llama3", "chatml" or "none"; "" = the vocabulary's own template if it has one,
  // else default_chat_template_name of the vocabulary.
  std::string chat_template;
};

// The default --ffn for a hidden size.
int64_t default_ffn_size(int64_t dim);

// The template a vocabulary's tokenizer calls for: "llama2" for tokenizer.ggml.model "llama" (SPM),
// "llama3" for "gpt2" with tokenizer.ggml.pre "llama-bpe", "chatml" for pre "qwen2", else "none".
std::string default_chat_template_name(const std::string& ggml_model, const std::string& ggml_pre);

// `args` excludes the "make-model" word itself.
int run_make_model_command(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err);

}  // namespace llm
