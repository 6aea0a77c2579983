// A reader for the small block-style YAML the published operator profiles use (BLIS kernel
// profiles, LLMServingSim meta.yaml): nested mappings by indentation, "- " sequences (also
// "- - x" for a sequence of sequences), plain or quoted scalars, and JSON-style flow values
// ({...}, [...]) on one line. Anchors, tags, multi-line strings and the like are refused.
// Numbers become JSON numbers, true/false booleans, null/~ null, the rest strings.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace llm {

// Throws std::invalid_argument "FILE:LINE: what" for what it cannot read.
nlohmann::json parse_simple_yaml(const std::string& text, const std::string& file);
nlohmann::json read_simple_yaml(const std::string& path);

}  // namespace llm
