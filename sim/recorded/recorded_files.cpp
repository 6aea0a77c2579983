#include "sim/recorded/recorded_files.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/trace/trace.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

std::string trim_field(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

std::ifstream open_recorded_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceError(path + ": cannot open file");
  return in;
}

std::vector<std::string> split_csv_line(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) out.push_back(trim_field(field));
  if (!line.empty() && line.back() == sep) out.push_back("");
  return out;
}

}  // namespace

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in = open_recorded_file(path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw TraceError(path + ": invalid JSON: " + e.what());
  }
}

std::map<std::string, std::string> read_flat_yaml(const std::string& path) {
  std::ifstream in = open_recorded_file(path);
  std::map<std::string, std::string> out;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    const std::string at = path + ":" + std::to_string(n);
    const std::string text = trim_field(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const size_t colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || line[0] == ' ' || text[0] == '-') {
      throw TraceError(at + ": expected a flat 'key: value' line, got '" + text + "'");
    }
    const std::string key = trim_field(text.substr(0, colon));
    std::string value = trim_field(text.substr(colon + 1));
    if (value.empty()) throw TraceError(at + ": " + key + ": no value (nested YAML is not read)");
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    if (!out.emplace(key, value).second) throw TraceError(at + ": " + key + ": given twice");
  }
  return out;
}

std::vector<CsvRow> read_csv_rows(const std::string& path) {
  std::ifstream in = open_recorded_file(path);
  std::string line;
  if (!std::getline(in, line)) throw TraceError(path + ":1: empty file (expected a header)");
  const std::vector<std::string> header = split_csv_line(line, ',');
  std::vector<CsvRow> rows;
  for (int64_t n = 2; std::getline(in, line); ++n) {
    if (trim_field(line).empty()) continue;
    const std::vector<std::string> fields = split_csv_line(line, ',');
    if (fields.size() != header.size()) {
      throw TraceError(path + ":" + std::to_string(n) + ": " + std::to_string(fields.size()) +
                       " fields, the header has " + std::to_string(header.size()));
    }
    CsvRow row;
    row.line = n;
    for (size_t i = 0; i < header.size(); ++i) row.fields[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

const std::string& csv_field(const std::string& path, const CsvRow& row, const std::string& key) {
  auto it = row.fields.find(key);
  if (it == row.fields.end() || it->second.empty()) {
    throw TraceError(path + ":" + std::to_string(row.line) + ": " + key + ": missing");
  }
  return it->second;
}

double parse_number_field(const std::string& label, const std::string& field,
                          const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    throw TraceError(label + ": " + field + ": expected a number, got '" + text + "'");
  }
  return v;
}

int64_t parse_count_field(const std::string& label, const std::string& field,
                          const std::string& text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) {
    throw TraceError(label + ": " + field + ": expected an integer >= 0, got '" + text + "'");
  }
  return v;
}

double json_number_at(const nlohmann::json& o, const std::string& key, const std::string& label) {
  if (!o.is_object() || !o.contains(key)) throw TraceError(label + ": " + key + ": missing");
  const nlohmann::json& v = o.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) {
    throw TraceError(label + ": " + key + ": expected a number, got " + v.dump());
  }
  return v.get<double>();
}

std::optional<std::string> find_model_config(const std::string& configs_dir,
                                             const std::string& model_id) {
  if (configs_dir.empty()) return std::nullopt;
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const std::string name = lower(model_id.substr(model_id.find_last_of('/') + 1));
  // Folder names differ in case between sources ("Llama-2-70b-hf", "llama-2-7b-hf").
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(configs_dir, ec)) {
    if (e.is_directory(ec)) folders.push_back(e.path());
  }
  std::sort(folders.begin(), folders.end());
  for (const std::string& candidate : {name, name + "-instruct"}) {
    for (const fs::path& folder : folders) {
      if (lower(folder.filename().string()) != candidate) continue;
      const fs::path p = folder / "config.json";
      if (fs::is_regular_file(p, ec)) return p.string();
    }
  }
  return std::nullopt;
}

std::string locate_model_configs(const std::string& given, const std::string& start) {
  if (!given.empty()) return given;
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    for (const char* sub : {"blis/model-configs", "model-configs"}) {
      if (fs::is_directory(dir / sub, ec)) return (dir / sub).string();
    }
    if (dir == dir.parent_path()) break;
  }
  return "";
}

}  // namespace llm
