#include "backends/sim/step_record.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/scheduler.h"

namespace llm {

BatchCost batch_cost_of(const SchedulerOutput& batch) {
  BatchCost cost;
  for (const ScheduledSeq& s : batch.seqs)
    cost.add(s.num_computed_before, s.num_new_tokens, s.samples);
  return cost;
}

std::string step_record_json(const StepRecord& r) {
  nlohmann::json j = {{"engine", r.engine},
                      {"step", r.step},
                      {"start_ns", r.start_ns},
                      {"execute_ns", r.execute_ns},
                      {"gap_ns", r.gap_ns},
                      {"modelled_ns", r.modelled_ns},
                      {"seqs", r.batch.num_sequences},
                      {"new_tokens", r.batch.new_tokens},
                      {"context_tokens", r.batch.context_tokens},
                      {"attention_pairs", r.batch.attention_pairs},
                      {"sampled", r.batch.sampling_sequences}};
  return j.dump();
}

namespace {

int64_t integer_field(const nlohmann::json& j, const char* key, int64_t min) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(std::string("missing field '") + key + "'");
  if (!it->is_number_integer()) {
    throw std::invalid_argument(std::string("field '") + key + "': expected an integer");
  }
  const int64_t v = it->get<int64_t>();
  if (v < min) {
    throw std::invalid_argument(std::string("field '") + key + "': " + std::to_string(v) +
                                " is below " + std::to_string(min));
  }
  return v;
}

}  // namespace

StepRecord parse_step_record(const std::string& line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("expected a JSON object");
  StepRecord r;
  r.engine = integer_field(j, "engine", 0);
  r.step = integer_field(j, "step", 0);
  r.start_ns = integer_field(j, "start_ns", 0);
  r.execute_ns = integer_field(j, "execute_ns", 0);
  r.gap_ns = integer_field(j, "gap_ns", -1);
  r.modelled_ns = integer_field(j, "modelled_ns", 0);
  r.batch.num_sequences = integer_field(j, "seqs", 1);
  r.batch.new_tokens = integer_field(j, "new_tokens", 1);
  r.batch.context_tokens = integer_field(j, "context_tokens", 0);
  r.batch.sampling_sequences = integer_field(j, "sampled", 0);
  const auto pairs = j.find("attention_pairs");
  if (pairs == j.end()) throw std::invalid_argument("missing field 'attention_pairs'");
  if (!pairs->is_number() || pairs->get<double>() < 0) {
    throw std::invalid_argument("field 'attention_pairs': expected a non-negative number");
  }
  r.batch.attention_pairs = pairs->get<double>();
  if (r.batch.new_tokens < r.batch.num_sequences) {
    throw std::invalid_argument("field 'new_tokens': fewer than 'seqs'");
  }
  if (r.batch.sampling_sequences > r.batch.num_sequences) {
    throw std::invalid_argument("field 'sampled': more than 'seqs'");
  }
  // The log does not say which sequences decoded; a step of one new token per sequence is all
  // decodes, another is priced as prefill chunks only.
  if (r.batch.new_tokens == r.batch.num_sequences) {
    r.batch.decode_sequences = r.batch.num_sequences;
    r.batch.decode_context_tokens = r.batch.context_tokens;
  }
  return r;
}

std::vector<StepRecord> read_step_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot read the step log");
  std::vector<StepRecord> steps;
  int64_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    try {
      steps.push_back(parse_step_record(line));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ":" + std::to_string(line_no) + ": " + e.what());
    }
  }
  if (steps.empty()) throw std::invalid_argument(path + ": no steps in the log");
  return steps;
}

size_t count_step_records(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot read the step log");
  size_t records = 0;
  for (std::string line; std::getline(in, line);) records += line.empty() ? 0 : 1;
  return records;
}

}  // namespace llm
