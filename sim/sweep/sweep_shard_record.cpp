#include "sim/sweep/sweep_shard_record.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace llm {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kFormat = "llmsim-sweep-shard/1";

Json number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

double number_of(const Json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string text = j.get<std::string>();  // a type_error for anything else
  if (text == "nan") return std::nan("");
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  throw std::invalid_argument("'" + text + "' is not a number");
}

Json point_json(size_t index, const SweepPointResult& r) {
  Json p;
  p["index"] = index;
  p["dir"] = r.dir_name;
  p["settings"] = Json::array();
  for (const SweepSetting& s : r.point) p["settings"].push_back({s.flag, s.value});
  p["status"] = r.ok ? "ok" : "failed";
  if (!r.ok) {
    p["error"] = r.error;
    return p;
  }
  Json values = Json::object();
  for (const auto& [key, value] : r.figures.values) values[key] = number(value);
  p["figures"] = values;
  p["sort_value"] = number(r.figures.sort_value);
  p["unstable"] = r.figures.unstable;
  p["unstable_since_s"] = number(r.figures.unstable_since_s);
  p["slo"] = Json::array();
  for (const SloResult& s : r.figures.slo) {
    p["slo"].push_back(
        {{"key", s.key}, {"value", number(s.value)}, {"target", number(s.target)}, {"met", s.met}});
  }
  if (!r.figures.faults.empty()) {
    p["faults"] = Json::array();
    for (const FaultWindow& f : r.figures.faults) p["faults"].push_back(fault_spec_text(f));
  }
  return p;
}

SweepPointResult point_of(const Json& p, size_t& index) {
  SweepPointResult r;
  index = p.at("index").get<size_t>();
  r.dir_name = p.at("dir").get<std::string>();
  for (const Json& s : p.at("settings")) {
    r.point.push_back({s.at(0).get<std::string>(), s.at(1).get<std::string>()});
  }
  const std::string status = p.at("status").get<std::string>();
  if (status != "ok" && status != "failed") {
    throw std::invalid_argument("point " + r.dir_name + ": status '" + status + "'");
  }
  r.ok = status == "ok";
  if (!r.ok) {
    r.error = p.at("error").get<std::string>();
    return r;
  }
  for (const auto& [key, value] : p.at("figures").items()) r.figures.values[key] = number_of(value);
  r.figures.sort_value = number_of(p.at("sort_value"));
  r.figures.unstable = p.at("unstable").get<bool>();
  r.figures.unstable_since_s = number_of(p.at("unstable_since_s"));
  for (const Json& s : p.at("slo")) {
    SloResult slo;
    slo.key = s.at("key").get<std::string>();
    slo.value = number_of(s.at("value"));
    slo.target = number_of(s.at("target"));
    slo.met = s.at("met").get<bool>();
    r.figures.slo.push_back(slo);
  }
  if (p.contains("faults")) {
    for (const Json& f : p.at("faults"))
      r.figures.faults.push_back(parse_fault(f.get<std::string>()));
  }
  return r;
}

}  // namespace

std::string format_shard_record(const SweepShardRecord& record) {
  Json doc;
  doc["format"] = kFormat;
  doc["shard"] = record.shard.index;
  doc["shards"] = record.shard.count;
  doc["args"] = record.args;
  doc["grid_points"] = record.grid_points;
  doc["points"] = Json::array();
  for (size_t i = 0; i < record.points.size(); ++i) {
    doc["points"].push_back(point_json(record.indices.at(i), record.points[i]));
  }
  return doc.dump(1) + "\n";
}

SweepShardRecord parse_shard_record(const std::string& text, const std::string& where) {
  try {
    const Json doc = Json::parse(text);
    if (!doc.is_object() || doc.value("format", "") != kFormat) {
      throw std::invalid_argument(std::string("not a sweep shard record (no \"format\": \"") +
                                  kFormat + "\")");
    }
    SweepShardRecord record;
    record.shard.index = doc.at("shard").get<int>();
    record.shard.count = doc.at("shards").get<int>();
    record.args = doc.at("args").get<std::vector<std::string>>();
    record.grid_points = doc.at("grid_points").get<size_t>();
    for (const Json& p : doc.at("points")) {
      size_t index = 0;
      record.points.push_back(point_of(p, index));
      record.indices.push_back(index);
    }
    return record;
  } catch (const std::exception& e) {  // nlohmann's parse, type and out-of-range errors included
    throw std::runtime_error(where + ": " + e.what());
  }
}

}  // namespace llm
