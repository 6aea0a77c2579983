#include "server/api/logprobs_json.h"

#include <algorithm>

#include "core/python_float.h"
#include "server/api/json_text.h"
#include "server/api/openai_response.h"

namespace llm {
namespace {

constexpr double kLowest = -9999.0;  // what vLLM prints for -inf (OpenAI's convention)

void append_logprob(std::string& out, double logprob) {
  append_python_float(out, std::max(logprob, kLowest));
}

// [b0,b1,...]: the UTF-8 bytes of `text` as integers.
void append_bytes(std::string& out, std::string_view text) {
  out += '[';
  for (size_t i = 0; i < text.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(static_cast<unsigned char>(text[i]));
  }
  out += ']';
}

std::string decoded(int32_t id, const TextCodec& codec) { return valid_utf8(codec.decode({id})); }

}  // namespace

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t bad = first_invalid_utf8(text);
    if (bad == std::string_view::npos) {
      out.append(text);
      break;
    }
    out.append(text.substr(0, bad));
    out += "\xEF\xBF\xBD";  // U+FFFD
    text.remove_prefix(bad + 1);
  }
  return out;
}

int64_t code_points(std::string_view text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

ShownPosition show_unscored(int32_t token, const TextCodec& codec) {
  ShownPosition p;
  p.token = decoded(token, codec);
  return p;
}

ShownPosition show_position(const PositionLogprobs& position, const TextCodec& codec) {
  ShownPosition p;
  p.token = decoded(position.token, codec);
  p.logprob = position.logprob;
  p.entries.reserve(position.top.size() + 1);
  p.entries.push_back({position.token, p.token, position.logprob, position.rank});
  for (size_t i = 0; i < position.top.size(); ++i) {
    const TokenLogprob& t = position.top[i];
    if (t.token == position.token) continue;  // listed first already
    p.entries.push_back({t.token, decoded(t.token, codec), t.logprob, static_cast<int64_t>(i) + 1});
  }
  return p;
}

void append_completion_logprobs(std::string& out, std::span<const ShownPosition> positions,
                                int64_t initial_text_offset) {
  out += "{\"text_offset\":[";
  int64_t offset = initial_text_offset;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(offset);
    offset += code_points(positions[i].token);
  }
  out += "],\"token_logprobs\":[";
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) out += ',';
    if (positions[i].logprob) {
      append_logprob(out, *positions[i].logprob);
    } else {
      out += "null";
    }
  }
  out += "],\"tokens\":[";
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, positions[i].token);
  }
  out += "],\"top_logprobs\":[";
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) out += ',';
    const ShownPosition& p = positions[i];
    if (!p.logprob) {
      out += "null";
      continue;
    }
    // A dict keyed by text: tokens that decode alike keep the first one's place and the last
    // one's value, as a Python dict comprehension does.
    std::vector<std::pair<std::string_view, double>> dict;
    for (const ShownToken& t : p.entries) {
      auto same =
          std::find_if(dict.begin(), dict.end(), [&](const auto& e) { return e.first == t.text; });
      if (same == dict.end()) {
        dict.emplace_back(t.text, t.logprob);
      } else {
        same->second = t.logprob;
      }
    }
    out += '{';
    for (size_t j = 0; j < dict.size(); ++j) {
      if (j > 0) out += ',';
      append_json_string(out, dict[j].first);
      out += ':';
      append_logprob(out, dict[j].second);
    }
    out += '}';
  }
  out += "]}";
}

void append_chat_logprobs(std::string& out, std::span<const ShownPosition> positions,
                          int32_t top_logprobs) {
  out += "{\"content\":[";
  for (size_t i = 0; i < positions.size(); ++i) {
    const ShownPosition& p = positions[i];
    if (i > 0) out += ',';
    out += "{\"token\":";
    append_json_string(out, p.token);
    out += ",\"logprob\":";
    append_logprob(out, p.logprob.value_or(kLowest));
    out += ",\"bytes\":";
    append_bytes(out, p.token);
    out += ",\"top_logprobs\":[";
    const size_t shown = std::min(p.entries.size(), static_cast<size_t>(std::max(top_logprobs, 0)));
    for (size_t j = 0; j < shown; ++j) {
      const ShownToken& t = p.entries[j];
      if (j > 0) out += ',';
      out += "{\"token\":";
      append_json_string(out, t.text);
      out += ",\"logprob\":";
      append_logprob(out, t.logprob);
      out += ",\"bytes\":";
      append_bytes(out, t.text);
      out += '}';
    }
    out += "]}";
  }
  out += "]}";
}

void append_prompt_logprobs(std::string& out, std::span<const ShownPosition> scored) {
  out += "[null";
  for (const ShownPosition& p : scored) {
    out += ",{";
    for (size_t j = 0; j < p.entries.size(); ++j) {
      const ShownToken& t = p.entries[j];
      if (j > 0) out += ',';
      out += '"';
      out += std::to_string(t.id);
      out += "\":{\"logprob\":";
      append_logprob(out, t.logprob);
      out += ",\"rank\":";
      out += std::to_string(t.rank);
      out += ",\"decoded_token\":";
      append_json_string(out, t.text);
      out += '}';
    }
    out += '}';
  }
  out += ']';
}

}  // namespace llm
