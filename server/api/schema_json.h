// Synthetic JSON values that conform to a JSON Schema, for the sim backend's tool calls and
// response_format json_schema (server/api/structured_output.h): a checker for the supported subset,
// a seeded generator and a validator.
//
// The subset: "type" (string, number, integer, boolean, array, object, null, or a list of them),
// "enum", "const", "properties", "required", "additionalProperties" (not generated beyond the
// properties), "items", "minItems"/"maxItems", "minimum"/"maximum", "minLength"/"maxLength",
// "anyOf"/"oneOf" (one branch), "$ref" into "$defs"/"definitions" of the root schema, and the
// annotations (title, description, default, examples, format, $schema...), which are ignored. An
// empty schema {} accepts any value. Keywords outside the subset that constrain values (pattern,
// allOf, not, if...) are refused by check_schema rather than silently ignored.
// Thread-safety: pure functions; Rng is the caller's.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/rng.h"

namespace llm {

// Nesting deeper than this is refused (and bounds the generator's recursion).
inline constexpr int kMaxSchemaDepth = 16;
// The most values (scalars, arrays and objects) one generated answer holds: a schema whose
// required minimums ask for more gets an answer cut off there, which does not validate.
inline constexpr int64_t kMaxGeneratedValues = 20000;

// Why `schema` is outside the supported subset (a JSON pointer-like path and the reason, e.g.
// "/properties/x: unsupported keyword 'pattern'"), or nullopt when it is supported.
std::optional<std::string> check_schema(const nlohmann::json& schema);

// A value that validates against `schema` (check_schema must have accepted it), drawn from `rng`:
// every required property and some optional ones, strings made of plain words.
nlohmann::json generate_conforming(const nlohmann::json& schema, Rng& rng);

// Why `value` does not validate against `schema` (the path of the first mismatch and the reason),
// or nullopt when it does.
std::optional<std::string> validate_against(const nlohmann::json& schema,
                                            const nlohmann::json& value);

}  // namespace llm
