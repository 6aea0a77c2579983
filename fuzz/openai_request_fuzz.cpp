// Fuzz target: a client's request body into the API layer, as ApiRouter::route handles it:
// parse_completion_request for /v1/chat/completions and /v1/completions, parse_responses_request
// for /v1/responses, tokenize_response and detokenize_response for /tokenize and /detokenize,
// with a SimTextCodec (the simulator's codec, with its own chat template or one of the real
// ones). Byte 0 picks the route (bits 0-1; bit 4 set: /v1/responses), the chat template (bits
// 2-3) and the scheduling policy (bit 5: priority); the rest is the body.
// Checks: each call returns or throws ApiException (openai_request.h, tokenize_api.h); the
// router then writes error_body(e.error()), which must not throw either (a throw there escapes
// the I/O thread and stops the server); a parsed request holds prompts within the vocabulary and
// the context, as its header promises, n within our cap, a priority only under the priority
// policy, and its ignored-fields log line is one line.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "server/api/api_error.h"
#include "server/api/openai_request.h"
#include "server/api/responses_request.h"
#include "server/api/tokenize_api.h"
#include "server/text/sim_text_codec.h"

namespace {

constexpr int64_t kVocabSize = 32000;
const llm::ModelInfo kModel{"sim-model", 2048, false, {}};
const llm::ModelInfo kPriorityModel{"sim-model", 2048, true, {}};

const llm::SimTextCodec& codec(int kind) {
  static const llm::SimTextCodec codecs[] = {
      llm::SimTextCodec(kVocabSize),
      llm::SimTextCodec(kVocabSize, llm::chat_template_for(llm::ChatTemplateKind::kLlama2)),
      llm::SimTextCodec(kVocabSize, llm::chat_template_for(llm::ChatTemplateKind::kLlama3)),
      llm::SimTextCodec(kVocabSize, llm::chat_template_for(llm::ChatTemplateKind::kChatml))};
  return codecs[kind];
}

void check_request(const llm::CompletionRequest& r) {
  llm::fuzz::require(!r.prompts.empty() && r.prompts.size() == r.prompt_texts.size(),
                     "a parsed request has no prompt, or prompts and texts disagree");
  for (const auto& prompt : r.prompts) {
    llm::fuzz::require(
        !prompt.empty() && static_cast<int64_t>(prompt.size()) < kModel.max_model_len,
        "a parsed prompt is empty or fills the context");
    for (const int32_t id : prompt) {
      llm::fuzz::require(id >= 0 && id < kVocabSize, "a parsed prompt id is outside the vocab");
    }
  }
  llm::fuzz::require(r.n >= 1 && r.n <= llm::kMaxN, "a parsed request has n outside [1, kMaxN]");
  llm::fuzz::require(r.stop.size() <= llm::kMaxStopStrings, "more stop strings than the limit");
  llm::fuzz::require(r.prompts.size() <= llm::kMaxPrompts, "more prompts than the limit");
  const std::string line = llm::ignored_fields_log_line("id", r.ignored_fields);
  llm::fuzz::require(line.find('\n') == std::string::npos, "the ignored-fields line has a newline");
  llm::fuzz::require(line.empty() == r.ignored_fields.empty(), "ignored fields without a line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int route = (data[0] & 16) ? 4 : data[0] & 3;
  const llm::TextCodec& tok = codec((data[0] >> 2) & 3);
  const bool priority_policy = (data[0] & 32) != 0;
  const llm::ModelInfo& model = priority_policy ? kPriorityModel : kModel;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (route) {
      case 0:
      case 1: {
        const auto endpoint = route == 0 ? llm::Endpoint::kChat : llm::Endpoint::kCompletions;
        const llm::CompletionRequest r = llm::parse_completion_request(endpoint, body, tok, model);
        check_request(r);
        llm::fuzz::require(priority_policy || r.priority == 0, "a priority under fcfs");
        break;
      }
      case 4: {
        const llm::CompletionRequest r = llm::parse_responses_request(body, tok, model);
        check_request(r);
        llm::fuzz::require(r.n == 1 && r.prompts.size() == 1, "a responses request is one chat");
        llm::fuzz::require(priority_policy || r.priority == 0, "a priority under fcfs");
        break;
      }
      case 2:
        llm::tokenize_response(body, tok, kModel);
        break;
      default:
        llm::detokenize_response(body, tok, kModel);
    }
  } catch (const llm::ApiException& e) {
    llm::fuzz::returns_or_throws<>("error_body of the ApiException",
                                   [&] { llm::error_body(e.error()); });
  } catch (const std::exception& e) {
    llm::fuzz::finding(
        "route " + std::to_string(route) + " threw an undocumented " + llm::fuzz::type_name(e),
        e.what());
  }
  return 0;
}
