// JSON text for everything the server writes (responses, SSE frames, errors, the request log):
// client text is bytes that may not be valid UTF-8 (a path, a request id, a token that is half a
// character), so every dump replaces invalid bytes with U+FFFD instead of throwing, as vLLM's
// decode(errors="replace") does; and the first field of a parsed request that holds text which
// is not valid UTF-8, for a 400 that names it.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace llm {

// j.dump() (compact, or indented by `indent`), invalid UTF-8 replaced by U+FFFD. Never throws
// for any content.
std::string dump_json(const nlohmann::json& j, int indent = -1);
std::string dump_json(const nlohmann::ordered_json& j, int indent = -1);
// One JSON string literal (quotes included) of arbitrary bytes.
std::string json_string_literal(std::string_view text);

// The offset of the first byte of `text` that is not part of well-formed UTF-8 (overlongs,
// surrogates and code points past U+10FFFF are ill-formed); npos when it is all well-formed.
size_t first_invalid_utf8(std::string_view text);
inline bool is_valid_utf8(std::string_view text) {
  return first_invalid_utf8(text) == std::string_view::npos;
}

// For a JSON text that is not valid UTF-8: the path ("messages[2].content", "stop[0]", "model",
// a key itself) of the first string holding an ill-formed byte, found by parsing a copy whose
// ill-formed bytes are marked; nullopt when the text is valid UTF-8, "" when the copy is not valid
// JSON either (the field cannot be named).
std::optional<std::string> invalid_utf8_field(std::string_view json_text);

}  // namespace llm
