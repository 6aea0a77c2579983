// Chat templates: exact prompt strings as the models' Hugging Face Jinja templates render them
// (Llama-2-chat, Llama-3-Instruct, Qwen2-Instruct), template detection from Jinja text, and the
// rendered prompts tokenizing with their special tokens as single ids.
#include "backends/tokenizer/chat_template.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {
namespace {

using Messages = std::vector<ChatMessage>;

struct RenderCase {
  const char* name;
  ChatTemplateKind kind;
  Messages messages;
  bool add_generation_prompt;
  std::string expected;
};

const Messages kSysUser = {{"system", "Be brief."}, {"user", "Hi there"}};
const Messages kMultiTurn = {
    {"system", " Be brief.\n"}, {"user", "  Hi\n"}, {"assistant", " Hello! "}, {"user", "Bye"}};
const Messages kUserOnly = {{"user", "What is 2+2?"}};

class RenderChat : public ::testing::TestWithParam<RenderCase> {};

TEST_P(RenderChat, MatchesTheJinjaTemplate) {
  const RenderCase& c = GetParam();
  EXPECT_EQ(render_chat(c.kind, c.messages, c.add_generation_prompt), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, RenderChat,
    ::testing::Values(
        // Llama 2: the system block sits inside the first [INST]; strip() covers the whole turn.
        RenderCase{"llama2_sys_user", ChatTemplateKind::kLlama2, kSysUser, true,
                   "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi there [/INST]"},
        RenderCase{"llama2_multi", ChatTemplateKind::kLlama2, kMultiTurn, true,
                   "<s>[INST] <<SYS>>\n Be brief.\n\n<</SYS>>\n\n  Hi [/INST] Hello! </s>"
                   "<s>[INST] Bye [/INST]"},
        RenderCase{"llama2_user", ChatTemplateKind::kLlama2, kUserOnly, false,
                   "<s>[INST] What is 2+2? [/INST]"},
        RenderCase{"llama2_empty", ChatTemplateKind::kLlama2, {}, true, ""},
        // Llama 3: BOS before the first message; each content trimmed.
        RenderCase{"llama3_sys_user", ChatTemplateKind::kLlama3, kSysUser, true,
                   "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe "
                   "brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi "
                   "there<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"},
        RenderCase{"llama3_multi_no_gen", ChatTemplateKind::kLlama3, kMultiTurn, false,
                   "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe "
                   "brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                   "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
                   "<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|>"},
        RenderCase{"llama3_empty",
                   ChatTemplateKind::kLlama3,
                   {},
                   true,
                   "<|start_header_id|>assistant<|end_header_id|>\n\n"},
        // ChatML (Qwen2-Instruct): contents verbatim; a default system message when none.
        RenderCase{"chatml_sys_user", ChatTemplateKind::kChatml, kSysUser, true,
                   "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi "
                   "there<|im_end|>\n<|im_start|>assistant\n"},
        RenderCase{"chatml_default_system", ChatTemplateKind::kChatml, kUserOnly, true,
                   "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
                   "What is 2+2?<|im_end|>\n<|im_start|>assistant\n"},
        RenderCase{"chatml_multi_no_gen", ChatTemplateKind::kChatml, kMultiTurn, false,
                   "<|im_start|>system\n Be brief.\n<|im_end|>\n<|im_start|>user\n  Hi\n"
                   "<|im_end|>\n<|im_start|>assistant\n Hello! <|im_end|>\n<|im_start|>user\n"
                   "Bye<|im_end|>\n"},
        RenderCase{"chatml_empty", ChatTemplateKind::kChatml, {}, true, "<|im_start|>assistant\n"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ChatTemplate, StripIsPythonStrip) {
  // U+00A0 and U+3000 are whitespace to Python's str.strip(); U+200B is not.
  const Messages m = {{"user", "\xC2\xA0\xE3\x80\x80 x \t\xE2\x80\x8B"}};
  EXPECT_EQ(render_chat(ChatTemplateKind::kLlama3, m, false),
            "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nx \t\xE2\x80\x8B"
            "<|eot_id|>");
}

TEST(ChatTemplate, Llama2RejectsWhatItCannotExpress) {
  const std::vector<Messages> bad = {
      {{"assistant", "hi"}},                                    // must start with user
      {{"user", "a"}, {"user", "b"}},                           // must alternate
      {{"system", "s"}, {"assistant", "a"}},                    // after system: user first
      {{"user", "a"}, {"assistant", "b"}, {"system", "late"}},  // system only first
      {{"user", "a"}, {"tool", "b"}},
  };
  for (const Messages& m : bad) {
    try {
      render_chat(ChatTemplateKind::kLlama2, m);
      ADD_FAILURE() << "accepted role '" << m.back().role << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + m.back().role + "'"), std::string::npos)
          << e.what();
    }
  }
  // Llama 3 and ChatML take any role.
  EXPECT_NO_THROW(render_chat(ChatTemplateKind::kLlama3, {{"tool", "x"}}));
  EXPECT_NO_THROW(render_chat(ChatTemplateKind::kChatml, {{"tool", "x"}}));
}

TEST(ChatTemplate, Names) {
  for (const auto kind :
       {ChatTemplateKind::kLlama2, ChatTemplateKind::kLlama3, ChatTemplateKind::kChatml}) {
    EXPECT_EQ(parse_chat_template_name(chat_template_name(kind)), kind);
  }
  EXPECT_EQ(parse_chat_template_name("qwen"), ChatTemplateKind::kChatml);
  EXPECT_EQ(parse_chat_template_name("qwen2"), ChatTemplateKind::kChatml);
  EXPECT_EQ(parse_chat_template_name("Llama3"), std::nullopt);
  EXPECT_EQ(parse_chat_template_name("mistral"), std::nullopt);
  EXPECT_EQ(parse_chat_template_name(""), std::nullopt);
}

// The Jinja sources of the models' tokenizer_config.json (as strings after JSON decoding).
constexpr const char* kLlama2Jinja =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set "
    "system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% set "
    "system_message = false %}{% endif %}{% for message in loop_messages %}{% if "
    "(message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation "
    "roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == 0 "
    "and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + "
    "'\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] %}"
    "{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' "
    "[/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + "
    "eos_token }}{% endif %}{% endfor %}";
constexpr const char* kLlama3Jinja =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
    "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim "
    "+ '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif "
    "%}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
constexpr const char* kQwen2Jinja =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ "
    "'<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}{{'<|im_start|>' "
    "+ message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if "
    "add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";
constexpr const char* kPlainChatmlJinja =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant"
    "\\n' }}{% endif %}";
constexpr const char* kMistralJinja =
    "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ '[INST] ' + "
    "message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ "
    "message['content'] + eos_token}}{% endif %}{% endfor %}";

TEST(ChatTemplate, DetectsTheModelsTemplates) {
  EXPECT_EQ(detect_chat_template(kLlama2Jinja), ChatTemplateKind::kLlama2);
  EXPECT_EQ(detect_chat_template(kLlama3Jinja), ChatTemplateKind::kLlama3);
  EXPECT_EQ(detect_chat_template(kQwen2Jinja), ChatTemplateKind::kChatml);
  EXPECT_EQ(detect_chat_template(kPlainChatmlJinja), ChatTemplateKind::kChatml);
  EXPECT_EQ(detect_chat_template(kMistralJinja), std::nullopt);
  EXPECT_EQ(detect_chat_template(""), std::nullopt);
  EXPECT_EQ(detect_chat_template("{{ messages }}"), std::nullopt);
  EXPECT_EQ(detect_chat_template(std::string(kLlama3Jinja) + "Cutting Knowledge Date"),
            std::nullopt);

  EXPECT_EQ(detect_chat_template_details(kQwen2Jinja)->default_system,
            "You are a helpful assistant.");
  EXPECT_EQ(detect_chat_template_details(kPlainChatmlJinja)->default_system, "");
  const Messages m = {{"user", "hi"}};
  EXPECT_EQ(render_chat(*detect_chat_template_details(kPlainChatmlJinja), m),
            "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplate, DetectsTheQwen2GgufTemplate) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const auto qwen = Tokenizer::from_gguf_file(testing::vocab_path("qwen2"));
  const auto tmpl = detect_chat_template_details(qwen->chat_template_text());
  ASSERT_TRUE(tmpl.has_value()) << qwen->chat_template_text();
  EXPECT_EQ(tmpl->kind, ChatTemplateKind::kChatml);
  // This GGUF carries the Qwen1.5-style default, without the period.
  EXPECT_EQ(tmpl->default_system, "You are a helpful assistant");
  EXPECT_EQ(Tokenizer::from_gguf_file(testing::vocab_path("llama-bpe"))->chat_template_text(), "");
}

// The Jinja text model files carry is recognised as the same template (ChatML with its default
// system message). That it renders what render_chat renders was checked with Python's jinja2.
TEST(ChatTemplate, OwnJinjaIsDetectedAsItsKind) {
  for (ChatTemplateKind kind :
       {ChatTemplateKind::kLlama2, ChatTemplateKind::kLlama3, ChatTemplateKind::kChatml}) {
    const std::string jinja = chat_template_jinja(kind);
    const auto tmpl = detect_chat_template_details(jinja);
    ASSERT_TRUE(tmpl.has_value()) << jinja;
    EXPECT_EQ(tmpl->kind, kind) << jinja;
    EXPECT_EQ(tmpl->default_system, chat_template_for(kind).default_system) << jinja;
    EXPECT_EQ(jinja.find('\n'), std::string::npos) << "a newline outside {{ }} would be output";
  }
  EXPECT_EQ(
      detect_chat_template_details(chat_template_jinja(ChatTemplateKind::kChatml))->default_system,
      "You are a helpful assistant.");
  // The special tokens come from the tokenizer's variables, as in the models' own templates.
  EXPECT_NE(chat_template_jinja(ChatTemplateKind::kLlama2).find("bos_token"), std::string::npos);
  EXPECT_NE(chat_template_jinja(ChatTemplateKind::kLlama2).find("eos_token"), std::string::npos);
  EXPECT_NE(chat_template_jinja(ChatTemplateKind::kLlama3).find("bos_token"), std::string::npos);
}

// The rendered prompts tokenize with each special-token text as its single id.
TEST(ChatTemplate, RenderedPromptsTokenizeWithSpecialIds) {
  LLM_REQUIRE_TOKENIZER_DATA();
  {
    const auto llama3 = Tokenizer::from_gguf_file(testing::vocab_path("llama-bpe"));
    const std::string prompt = render_chat(ChatTemplateKind::kLlama3, {{"user", "Hi"}});
    // <|begin_of_text|> <|start_header_id|> "user" <|end_header_id|> "\n\n" "Hi" <|eot_id|>
    // <|start_header_id|> "assistant" <|end_header_id|> "\n\n"
    const std::vector<int32_t> ids = llama3->encode(prompt, false, /*parse_special=*/true);
    EXPECT_EQ(ids, (std::vector<int32_t>{128000, 128006, 882, 128007, 271, 13347, 128009, 128006,
                                         78191, 128007, 271}));
    EXPECT_EQ(llama3->decode(ids, /*skip_special_tokens=*/false), prompt);
  }
  {
    const auto qwen = Tokenizer::from_gguf_file(testing::vocab_path("qwen2"));
    const std::string prompt = render_chat(ChatTemplateKind::kChatml, {{"user", "Hi"}});
    const std::vector<int32_t> ids = qwen->encode(prompt, false, true);
    ASSERT_GE(ids.size(), 3u);
    EXPECT_EQ(ids.front(), 151644);  // <|im_start|>
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 151644), 3);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 151645), 2);  // <|im_end|>
    EXPECT_EQ(qwen->decode(ids, false), prompt);
  }
  {
    const auto spm = Tokenizer::from_gguf_file(testing::vocab_path("llama-spm"));
    const std::string prompt = render_chat(ChatTemplateKind::kLlama2, {{"user", "Hi"}});
    // <s> "▁[" "INST" "]" "▁Hi" "▁[" "/" "INST" "]" as Hugging Face's Llama-2 tokenizer gives.
    EXPECT_EQ(spm->encode(prompt, false, true),
              (std::vector<int32_t>{1, 518, 25580, 29962, 6324, 518, 29914, 25580, 29962}));
  }
}

}  // namespace
}  // namespace llm
