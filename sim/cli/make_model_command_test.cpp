// `llmsim make-model`: writes a model both ways from a real vocabulary, the two load identically,
// the same seed gives the same files, both formats carry the chat template, and bad flags exit 2
// naming the flag.
#include "sim/cli/make_model_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "backends/formats/gguf_reader.h"
#include "backends/model/testing/model_test_support.h"
#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/chat_template.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {
namespace {

int run_make_model(const std::vector<std::string>& args, std::string* out_text = nullptr,
                   std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const int code = run_make_model_command(args, out, err);
  if (out_text) *out_text = out.str();
  if (err_text) *err_text = err.str();
  return code;
}

TEST(MakeModelCommand, DefaultFfnIsEightThirdsRoundedUpTo64) {
  EXPECT_EQ(default_ffn_size(256), 704);  // 682.7 -> 704
  EXPECT_EQ(default_ffn_size(64), 192);   // 170.7 -> 192
  EXPECT_EQ(default_ffn_size(4096), 10944);
}

TEST(MakeModelCommand, LlamaModelFromTheLlama3VocabularyLoadsIdenticallyBothWays) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string dir = testing::scratch_dir("make_llama");
  std::string out, err;
  ASSERT_EQ(run_make_model(
                {"--arch", "llama", "--vocab", testing::vocab_path("llama-bpe"), "--dim", "32",
                 "--layers", "2", "--heads", "4", "--kv-heads", "2", "--seed", "1", "--out", dir},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("wrote"), std::string::npos);
  const ModelWeights g = load_model_weights(dir + "/model.gguf");
  const ModelWeights s = load_model_weights(dir);
  testing::expect_identical_weights(g, s);
  EXPECT_EQ(g.config.vocab_size, 128256);
  EXPECT_EQ(g.config.intermediate_size, 128);  // 85.3 -> 128
  EXPECT_EQ(g.config.rope_theta, 500000.0);    // from the vocabulary's llama.rope.freq_base
  EXPECT_EQ(g.config.num_key_value_heads, 2);
  EXPECT_FALSE(g.config.tie_word_embeddings);
  EXPECT_EQ(g.config.bos_token_id, 128000);
  // The GGUF is a usable tokenizer file too, and tokenizer.json tokenizes the same.
  const auto tok = Tokenizer::from_gguf_file(dir + "/model.gguf");
  EXPECT_EQ(tok->vocab_size(), 128256);
  const auto hf = Tokenizer::from_tokenizer_json(dir + "/tokenizer.json");
  const std::string text = "Hello world, it's 2026!  \xC3\xA9t\xC3\xA9";
  EXPECT_EQ(hf->encode(text, true), tok->encode(text, true));
  EXPECT_FALSE(tok->encode(text, false).empty());
  std::filesystem::remove_all(dir);
}

TEST(MakeModelCommand, Qwen2TiedF16SameSeedSameFiles) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string a = testing::scratch_dir("make_qwen_a");
  const std::string b = testing::scratch_dir("make_qwen_b");
  for (const std::string& dir : {a, b}) {
    std::string err;
    ASSERT_EQ(run_make_model({"--arch=qwen2", "--vocab", testing::vocab_path("qwen2"), "--dim",
                              "32", "--layers", "1", "--heads", "2", "--tied", "--peaky", "--dtype",
                              "f16", "--ffn", "64", "--out", dir},
                             nullptr, &err),
              0)
        << err;
  }
  EXPECT_EQ(testing::read_bytes(a + "/model.gguf"), testing::read_bytes(b + "/model.gguf"));
  EXPECT_EQ(testing::read_bytes(a + "/model.safetensors"),
            testing::read_bytes(b + "/model.safetensors"));
  const ModelWeights g = load_model_weights(a + "/model.gguf");
  testing::expect_identical_weights(g, load_model_weights(a));
  EXPECT_TRUE(g.config.tie_word_embeddings);
  EXPECT_TRUE(g.config.attention_bias);
  EXPECT_EQ(g.config.torch_dtype, "float16");
  EXPECT_EQ(g.config.rope_theta, 1000000.0);
  std::filesystem::remove_all(a);
  std::filesystem::remove_all(b);
}

TEST(MakeModelCommand, Llama3RopeScalingLoadsIdenticallyBothWays) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string dir = testing::scratch_dir("make_llama3_rope");
  std::string out, err;
  ASSERT_EQ(run_make_model({"--arch", "llama", "--vocab", testing::vocab_path("llama-bpe"), "--dim",
                            "32", "--layers", "1", "--heads", "2", "--rope-scaling", "llama3",
                            "--max-position-embeddings", "4096", "--out", dir},
                           &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("llama3 RoPE scaling"), std::string::npos) << out;
  ModelWeights g = load_model_weights(dir + "/model.gguf");
  const ModelWeights s = load_model_weights(dir);
  EXPECT_EQ(s.config.rope_scaling.type, RopeScaling::Type::kLlama3);
  EXPECT_EQ(s.config.rope_scaling.factor, 8.0);
  EXPECT_EQ(s.config.rope_scaling.original_max_position_embeddings, 1024);  // 4096 / 4
  ASSERT_EQ(s.config.rope_freq_factors.size(), 8u);                         // head_dim 16
  EXPECT_EQ(g.config.rope_freq_factors, s.config.rope_freq_factors);
  EXPECT_EQ(g.config.rope_scaling.type, RopeScaling::Type::kNone);  // GGUF keeps only factors
  g.config.rope_scaling = s.config.rope_scaling;
  testing::expect_identical_weights(g, s);
  std::filesystem::remove_all(dir);
}

// The chat template make-model writes into both formats: the detected kind of
// load_tokenizer(DIR/model.gguf) and load_tokenizer(DIR) (tokenizer.json + tokenizer_config.json);
// "" when neither has a template. Fails the test when the two disagree.
std::string written_template(const std::string& vocab, std::vector<std::string> extra = {}) {
  const std::string dir = testing::scratch_dir("make_tmpl");
  std::vector<std::string> args = {"--arch",  "llama", "--vocab",  testing::vocab_path(vocab),
                                   "--dim",   "16",    "--layers", "1",
                                   "--heads", "2",     "--out",    dir};
  args.insert(args.end(), extra.begin(), extra.end());
  std::string err;
  if (run_make_model(args, nullptr, &err) != 0) {
    ADD_FAILURE() << err;
    return "(failed)";
  }
  const std::string gguf = load_tokenizer(dir + "/model.gguf")->chat_template_text();
  const std::string hf = load_tokenizer(dir)->chat_template_text();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(gguf, hf) << vocab;
  if (gguf.empty()) return "";
  const auto kind = detect_chat_template_details(gguf);
  if (!kind) return "(unrecognised)";
  return std::string(chat_template_name(kind->kind)) + "|" + kind->default_system;
}

TEST(MakeModelCommand, WritesTheVocabularysChatTemplate) {
  LLM_REQUIRE_TOKENIZER_DATA();
  EXPECT_EQ(written_template("llama-bpe"), "llama3|");
  EXPECT_EQ(written_template("llama-spm"), "llama2|");
  // The qwen2 vocabulary has its own ChatML template (default system without the period): kept.
  EXPECT_EQ(written_template("qwen2"), "chatml|You are a helpful assistant");
  EXPECT_EQ(written_template("gpt-2"), "");
}

TEST(MakeModelCommand, ChatTemplateFlagChoosesOrDropsTheTemplate) {
  LLM_REQUIRE_TOKENIZER_DATA();
  EXPECT_EQ(written_template("qwen2", {"--chat-template", "chatml"}),
            "chatml|You are a helpful assistant.");
  EXPECT_EQ(written_template("qwen2", {"--chat-template", "none"}), "");
  EXPECT_EQ(written_template("llama-bpe", {"--chat-template=none"}), "");
  EXPECT_EQ(written_template("llama-bpe", {"--chat-template", "llama2"}), "llama2|");
  EXPECT_EQ(written_template("gpt-2", {"--chat-template", "llama3"}), "llama3|");
}

TEST(MakeModelCommand, DefaultChatTemplateName) {
  EXPECT_EQ(default_chat_template_name("llama", "default"), "llama2");
  EXPECT_EQ(default_chat_template_name("gpt2", "llama-bpe"), "llama3");
  EXPECT_EQ(default_chat_template_name("gpt2", "qwen2"), "chatml");
  EXPECT_EQ(default_chat_template_name("gpt2", "gpt-2"), "none");
  EXPECT_EQ(default_chat_template_name("bert", "qwen2"), "none");
}

TEST(MakeModelCommand, BadFlagsExit2NamingTheFlag) {
  const std::vector<std::string> ok = {"--arch",   "llama", "--vocab", "v.gguf", "--dim", "32",
                                       "--layers", "1",     "--heads", "4",      "--out", "/tmp/x"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = ok;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {with({"--dim", "abc"}), "--dim"},
      {with({"--layers", "0"}), "--layers"},
      {with({"--kv-heads", "3"}), "--kv-heads"},
      {with({"--arch", "gpt2"}), "--arch"},
      {with({"--dtype", "q4"}), "--dtype"},
      {with({"--rope-theta", "-1"}), "--rope-theta"},
      {with({"--heads", "5"}), "--heads"},  // 32 % 5
      {with({"--head-dim", "5"}), "--head-dim"},
      {with({"--tied=yes"}), "--tied"},
      {with({"--bogus"}), "--bogus"},
      {with({"--rope-scaling", "yarn"}), "--rope-scaling"},
      {with({"--rope-original-context", "512"}), "--rope-original-context"},  // needs llama3
      {with({"--rope-scaling", "llama3", "--rope-original-context", "0"}),
       "--rope-original-context"},
      {with({"--seed"}), "--seed"},
      {with({"--chat-template", "mistral"}), "--chat-template"},
      {with({"--chat-template"}), "--chat-template"},
      {{"--arch", "llama", "--dim", "32", "--layers", "1", "--heads", "4", "--out", "/tmp/x"},
       "--vocab"},
  };
  for (const auto& [args, flag] : cases) {
    std::string err;
    EXPECT_EQ(run_make_model(args, nullptr, &err), 2) << flag;
    EXPECT_NE(err.find(flag), std::string::npos) << err;
  }
  std::string err;
  EXPECT_EQ(run_make_model(ok, nullptr, &err), 2);  // v.gguf does not exist
  EXPECT_NE(err.find("--vocab"), std::string::npos) << err;
  std::string out;
  EXPECT_EQ(run_make_model({"--help"}, &out), 0);
  EXPECT_NE(out.find("usage: llmsim make-model"), std::string::npos);
}

}  // namespace
}  // namespace llm
