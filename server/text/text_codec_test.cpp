// The two TextCodecs: SimTextCodec keeps SimTokenizer's behaviour; TokenizerTextCodec streams
// real tokenizers' output without ever splitting a UTF-8 character.
#include <gtest/gtest.h>

#include "backends/testing/shared_testdata.h"
#include "server/text/sim_text_codec.h"
#include "server/text/tokenizer_text_codec.h"

namespace llm {
namespace {

// Whether `s` is complete, valid UTF-8 (no truncated or stray continuation bytes).
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80         ? 1
                       : (c >> 5) == 6  ? 2
                       : (c >> 4) == 14 ? 3
                       : (c >> 3) == 30 ? 4
                                        : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += len;
  }
  return true;
}

TEST(SimTextCodec, IsSimTokenizer) {
  const SimTextCodec codec(1000);
  const SimTokenizer& tok = codec.tokenizer();
  EXPECT_EQ(codec.vocab_size(), 1000);
  EXPECT_EQ(codec.eos_token_id(), 999);
  EXPECT_TRUE(codec.extra_stop_token_ids().empty());
  EXPECT_EQ(codec.encode("Hello, world", true), tok.encode("Hello, world"));
  const std::vector<ChatMessage> m = {{"user", "Hi"}};
  EXPECT_EQ(codec.render_chat(m, true), "<|user|>\nHi\n<|assistant|>\n");
  EXPECT_EQ(codec.render_chat({{"system", "Be brief."}, {"user", "Hi"}}, true),
            "<|system|>\nBe brief.\n<|user|>\nHi\n<|assistant|>\n");
  EXPECT_EQ(codec.render_chat(m, false), "<|user|>\nHi\n");
  auto stream = codec.stream();
  EXPECT_EQ(stream->push(0) + stream->push(1) + stream->flush(), tok.decode({0, 1}));
  // --chat-template applies to the sim tokenizer too.
  const SimTextCodec chatml(1000, chat_template_for(ChatTemplateKind::kChatml));
  EXPECT_NE(chatml.render_chat(m, true).find("<|im_start|>user\nHi<|im_end|>"), std::string::npos);
}

TEST(TokenizerTextCodec, StreamsNeverSplitACharacterAndEqualDecode) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  const std::string text =
      "Grüße, 世界! 🙂🙃 naïve café — ∑ x² ≤ ∞ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢";
  for (const std::string vocab : {"llama-spm", "gpt-2", "llama-bpe", "qwen2"}) {
    SCOPED_TRACE(vocab);
    const TokenizerTextCodec codec(load_tokenizer(testing::vocab_path(vocab)), std::nullopt);
    const std::vector<int32_t> ids = codec.encode(text, false);
    ASSERT_GT(ids.size(), 10u);
    auto stream = codec.stream();
    std::string joined;
    int split_pieces = 0;  // tokens whose own bytes are not whole characters
    for (int32_t id : ids) {
      const std::string part = stream->push(id);
      EXPECT_TRUE(valid_utf8(part)) << "token " << id;
      if (!valid_utf8(codec.tokenizer().piece(id, true))) ++split_pieces;
      joined += part;
    }
    joined += stream->flush();
    // A stream is a continuation of the prompt: SentencePiece's first "▁" stays a space there
    // (as vLLM streams it), while decode() of the whole text drops it.
    const std::string lead = codec.tokenizer().strips_leading_space() ? " " : "";
    EXPECT_EQ(joined, lead + codec.tokenizer().decode(ids, true));
    EXPECT_EQ(joined, lead + text);
    // The text is chosen so that some tokens carry partial characters (byte fallback / bytes).
    EXPECT_GT(split_pieces, 0);
    // Ids past the tokenizer's vocabulary (a model's padded rows) have no text.
    EXPECT_EQ(codec.stream()->push(codec.tokenizer().vocab_size() + 5), "");
    EXPECT_THROW(codec.render_chat({{"user", "x"}}, true), std::invalid_argument);
  }
}

TEST(TokenizerTextCodec, ChatIsTheTemplateEncodedWithSpecialTokensParsed) {
  if (!testing::have_tokenizer_data()) GTEST_SKIP() << "no shared tokenizer data";
  const TokenizerTextCodec codec(load_tokenizer(testing::vocab_path("llama-bpe")),
                                 chat_template_for(ChatTemplateKind::kLlama3));
  const std::string rendered = codec.render_chat({{"user", "Hi"}}, true);
  EXPECT_EQ(rendered.rfind("<|begin_of_text|>", 0), 0u);
  const std::vector<int32_t> ids = codec.encode(rendered, false);
  EXPECT_EQ(ids.front(), codec.tokenizer().vocab().find("<|begin_of_text|>"));
  EXPECT_EQ(ids, codec.tokenizer().encode(rendered, false, true));
  // /detokenize keeps the special tokens.
  EXPECT_EQ(codec.decode(ids), rendered);
}

}  // namespace
}  // namespace llm
