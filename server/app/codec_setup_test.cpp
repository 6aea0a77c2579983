// Startup choice of the chat template: the flag, else the tokenizer's metadata, else an error
// naming --chat-template; and tokenizer load errors naming the flag.
#include "server/app/codec_setup.h"

#include <gtest/gtest.h>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/testing/shared_testdata.h"
#include "server/app/server_options.h"

namespace llm {
namespace {

// A copy of a test vocabulary with tokenizer.chat_template set to `jinja`.
std::string vocab_with_template(const std::string& vocab, const std::string& jinja,
                                const std::string& name) {
  const GgufFile in = GgufFile::open(testing::vocab_path(vocab));
  GgufWriter out;
  for (const auto& [key, value] : in.metadata()) out.set(key, value);
  out.set_string("tokenizer.chat_template", jinja);
  const std::string path = testing::scratch_dir("codec_setup_" + name) + "/vocab.gguf";
  out.write_file(path);
  return path;
}

std::string error_of(const std::string& flag, const Tokenizer* tokenizer) {
  try {
    resolve_chat_template(flag, tokenizer);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

constexpr const char* kLlama3Jinja =
    "{% for message in messages %}<|start_header_id|>{{ message['role'] }}<|end_header_id|>\n\n"
    "{{ message['content'] | trim }}<|eot_id|>{% endfor %}";

TEST(CodecSetup, TheFlagWinsThenTheMetadataThenAnErrorNamingTheFlag) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  const auto tagged =
      load_server_tokenizer(vocab_with_template("llama-bpe", kLlama3Jinja, "l3"), "--tokenizer");
  EXPECT_EQ(resolve_chat_template("", tagged.get())->kind, ChatTemplateKind::kLlama3);
  EXPECT_EQ(resolve_chat_template("chatml", tagged.get())->kind, ChatTemplateKind::kChatml);

  const auto plain = load_server_tokenizer(testing::vocab_path("llama-bpe"), "--tokenizer");
  std::string e = error_of("", plain.get());
  EXPECT_NE(e.find("--chat-template"), std::string::npos) << e;
  EXPECT_NE(e.find("has no chat template"), std::string::npos) << e;
  EXPECT_EQ(resolve_chat_template("llama2", plain.get())->kind, ChatTemplateKind::kLlama2);

  const auto odd = load_server_tokenizer(
      vocab_with_template("llama-bpe", "{{ messages | tojson }}", "odd"), "--tokenizer");
  e = error_of("", odd.get());
  EXPECT_NE(e.find("--chat-template"), std::string::npos) << e;
  EXPECT_NE(e.find("not one this server knows"), std::string::npos) << e;

  // The sim's own tokenizer needs no template; a bad name is refused either way.
  EXPECT_EQ(resolve_chat_template("", nullptr), std::nullopt);
  EXPECT_NE(error_of("jinja", nullptr).find("--chat-template"), std::string::npos);
}

TEST(CodecSetup, LoadErrorsNameTheFlagAndThePath) {
  try {
    load_server_tokenizer("/no/such/tokenizer.json", "--tokenizer");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--tokenizer /no/such/tokenizer.json"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace llm
