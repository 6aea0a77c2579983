// Fuzz target: the OpenAI response builders (server/api/openai_response.h) fed arbitrary token
// text, ids, model names, stop reasons and metrics (any bytes: invalid UTF-8 included), for both
// endpoints: the whole body, the role, delta and usage chunks, the error frame, the models body.
// Checks: no builder throws (the header documents no exception: a throw escapes a session's
// handler); every body and "data: ...\n\n" frame is one valid JSON object; the append_* hot-path
// forms are byte-identical to the builders; append_json_string equals nlohmann's dump() for valid
// UTF-8; a valid UTF-8 text reads back unchanged.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "server/api/openai_response.h"

namespace {

using llm::fuzz::require;
using json = nlohmann::json;

// The JSON of a body, or of a frame without "data: " and "\n\n"; a finding when it is not JSON.
json parse_json(std::string_view text, bool frame) {
  if (frame) {
    require(text.starts_with("data: ") && text.ends_with("\n\n"),
            "a frame is not 'data: ...\\n\\n'", text);
    text = text.substr(6, text.size() - 8);
  }
  json j;
  llm::fuzz::returns_or_throws<>("parsing a built body back", [&] { j = json::parse(text); });
  require(j.is_object(), "a built body is not a JSON object", text);
  return j;
}

std::optional<double> maybe_double(FuzzedDataProvider& in) {
  if (!in.ConsumeBool()) return std::nullopt;
  return in.ConsumeFloatingPoint<double>();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  llm::ResponseHead head;
  head.endpoint = in.ConsumeBool() ? llm::Endpoint::kChat : llm::Endpoint::kCompletions;
  head.id = in.ConsumeRandomLengthString(64);
  head.created = in.ConsumeIntegral<int64_t>();
  head.model = in.ConsumeRandomLengthString(64);
  llm::Usage usage;  // token counts: the engine's, never near int64 overflow
  usage.prompt_tokens = in.ConsumeIntegralInRange<int64_t>(0, int64_t{1} << 40);
  usage.completion_tokens = in.ConsumeIntegralInRange<int64_t>(0, int64_t{1} << 40);
  std::optional<llm::PerRequestMetrics> metrics;
  if (in.ConsumeBool()) {
    metrics = llm::PerRequestMetrics{maybe_double(in), maybe_double(in), maybe_double(in),
                                     maybe_double(in), maybe_double(in)};
  }
  std::vector<llm::ChoiceResult> choices(in.ConsumeIntegralInRange<size_t>(0, 3));
  for (llm::ChoiceResult& c : choices) {
    c.index = in.ConsumeIntegral<int32_t>();
    c.finish_reason =
        in.PickValueInArray<std::string_view>({"", "stop", "length", "abort", "error"});
    const int reason = in.ConsumeIntegralInRange(0, 2);
    if (reason == 1) c.stop_string = in.ConsumeRandomLengthString(16);
    if (reason == 2) c.stop_token = in.ConsumeIntegral<int32_t>();
    c.text = in.ConsumeRandomLengthString(256);
  }
  const llm::ApiError error{in.ConsumeIntegralInRange(100, 599), in.ConsumeRandomLengthString(64),
                            in.ConsumeRandomLengthString(16), in.ConsumeRandomLengthString(16)};
  const bool with_usage = in.ConsumeBool();
  const llm::Usage* chunk_usage = with_usage ? &usage : nullptr;

  llm::fuzz::returns_or_throws<>("the response builders", [&] {
    const json body = parse_json(llm::build_completion_body(head, choices, usage, metrics), false);
    const std::string prefix = llm::render_chunk_prefix(head);
    for (const llm::ChoiceResult& c : choices) {
      std::string appended;
      llm::append_delta_chunk(appended, prefix, head.endpoint, c, chunk_usage);
      require(appended == llm::build_delta_chunk(head, c, chunk_usage),
              "append_delta_chunk differs from build_delta_chunk");
      const json chunk = parse_json(appended, true);
      if (llm::fuzz::is_valid_utf8(c.text)) {
        const json& choice = chunk["choices"][0];
        const json& text =
            head.endpoint == llm::Endpoint::kChat ? choice["delta"]["content"] : choice["text"];
        require(text == c.text, "a delta chunk's text does not read back", c.text);
      }
      appended.clear();
      llm::append_role_chunk(appended, prefix, c.index, chunk_usage);
      require(appended == llm::build_role_chunk(head, c.index, chunk_usage),
              "append_role_chunk differs from build_role_chunk");
      parse_json(appended, true);
    }
    std::string appended;
    const std::optional<llm::PerRequestMetrics>* chunk_metrics = with_usage ? &metrics : nullptr;
    llm::append_usage_chunk(appended, prefix, usage, chunk_metrics);
    require(appended == llm::build_usage_chunk(head, usage, chunk_metrics),
            "append_usage_chunk differs from build_usage_chunk");
    parse_json(appended, true);
    parse_json(llm::build_error_frame(error), true);
    parse_json(llm::build_models_body({head.model, error.message}, head.id, usage.prompt_tokens,
                                      head.created, [&] { return head.model; }),
               false);
    llm::metrics_json(metrics);
    (void)body;
  });
  for (const std::string* s :
       {&std::as_const(head.id), &std::as_const(head.model), &error.message}) {
    if (!llm::fuzz::is_valid_utf8(*s)) continue;
    std::string out;
    llm::append_json_string(out, *s);
    require(out == json(*s).dump(), "append_json_string differs from dump()", *s);
  }
  return 0;
}
