// Fuzz target: the chat-template renderer (backends/tokenizer/chat_template.h) on arbitrary
// conversations (any roles, any content bytes, up to 8 messages) for the three kinds and a ChatML
// default system message, plus template detection on arbitrary Jinja text and the names.
// Checks: render_chat returns or throws std::invalid_argument (a role the template cannot
// express), only for Llama 2 (Llama 3 and ChatML take any role);
// detect_chat_template(_details) and parse_chat_template_name do not throw; each kind's own Jinja
// text is detected as that kind.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/chat_template.h"
#include "fuzz/fuzz_util.h"

namespace {

using llm::fuzz::require;
using llm::fuzz::returns_or_throws;

constexpr llm::ChatTemplateKind kKinds[] = {
    llm::ChatTemplateKind::kLlama2, llm::ChatTemplateKind::kLlama3, llm::ChatTemplateKind::kChatml};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const llm::ChatTemplateKind kind : kKinds) {
    const auto detected = llm::detect_chat_template_details(llm::chat_template_jinja(kind));
    require(detected && detected->kind == kind &&
                detected->default_system == llm::chat_template_for(kind).default_system,
            "a kind's own Jinja template is not detected as that kind");
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  llm::ChatTemplate tmpl{in.PickValueInArray(kKinds), ""};
  if (in.ConsumeBool()) tmpl.default_system = in.ConsumeRandomLengthString(32);
  const bool add_generation_prompt = in.ConsumeBool();
  std::vector<llm::ChatMessage> messages(in.ConsumeIntegralInRange<size_t>(0, 8));
  for (llm::ChatMessage& m : messages) {
    m.role = in.ConsumeBool() ? std::string(in.PickValueInArray<std::string_view>(
                                    {"system", "user", "assistant", "developer", "tool"}))
                              : in.ConsumeRandomLengthString(12);
    m.content = in.ConsumeRandomLengthString(128);
  }
  const std::string rest = in.ConsumeRemainingBytesAsString();

  const bool rendered = returns_or_throws<std::invalid_argument>(
      "render_chat", [&] { llm::render_chat(tmpl, messages, add_generation_prompt); });
  require(rendered || tmpl.kind == llm::ChatTemplateKind::kLlama2,
          "render_chat refused a Llama 3 or ChatML conversation (they take any role)");
  returns_or_throws<>("detect_chat_template", [&] {
    llm::detect_chat_template(rest);
    llm::detect_chat_template_details(rest);
    llm::parse_chat_template_name(rest);
  });
  return 0;
}
