// Small readers the recorded-run readers share: a whole file as JSON, a flat `key: value` YAML
// file, CSV rows with a header, and finding a model's config.json among published model configs.
// Every problem is a TraceError "FILE[:LINE]: FIELD: what is wrong".
// Thread-safety: pure functions over files.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace llm {

// The file parsed as JSON (YAML written in its JSON form reads too).
nlohmann::json read_json_file(const std::string& path);

// A flat YAML mapping: one `key: value` per line, # comments and blank lines skipped; values
// unquoted. Nested or list syntax is refused naming the line.
std::map<std::string, std::string> read_flat_yaml(const std::string& path);

// A CSV file with a header line: each row as header -> field (no quoting; the files read here
// have none). `line` of each row is kept for messages.
struct CsvRow {
  int64_t line = 0;
  std::map<std::string, std::string> fields;
};
std::vector<CsvRow> read_csv_rows(const std::string& path);
// The field `key` of a row, refused naming file, line and field when absent or empty.
const std::string& csv_field(const std::string& path, const CsvRow& row, const std::string& key);

// Parses a number or a non-negative integer from text, refusing it as "LABEL: FIELD: ...".
double parse_number_field(const std::string& label, const std::string& field,
                          const std::string& text);
int64_t parse_count_field(const std::string& label, const std::string& field,
                          const std::string& text);

// A JSON object's member as a number, refused naming the field when absent or not a number.
double json_number_at(const nlohmann::json& object, const std::string& key,
                      const std::string& label);

// The config.json of a model id ("meta-llama/Llama-2-7b-hf") in `configs_dir`: the folder named
// as its last path part, in any case ("llama-2-7b-hf/config.json"), or that name with
// "-instruct" added (a base model and its instruct variant share the architecture).
std::optional<std::string> find_model_config(const std::string& configs_dir,
                                             const std::string& model_id);

// The nearest model-configs folder for a recorded run: `given` when not empty, else
// blis/model-configs or model-configs in `start` or one of its parents ("" when none).
std::string locate_model_configs(const std::string& given, const std::string& start);

}  // namespace llm
