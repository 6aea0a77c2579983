// Trace readers and writer: turn a trace file (our JSON format, Azure LLM inference CSV, Mooncake
// JSONL) or a "synthetic:..." spec into an llm::Trace, write a Trace back as our JSON format, and
// rescale a trace's load. Every reader validates its input and throws llm::TraceError with a
// message "FILE:LINE: FIELD: what is wrong" (JSON: "FILE: requests[i].FIELD: what is wrong").
// The formats and the rules each importer applies are described in traces/README.md.
// Thread-safety: all functions are reentrant; they share no state.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/trace/trace.h"

namespace llm {

// The optional "metadata" object of our JSON format.
struct TraceMetadata {
  std::string name;
  std::string description;
  std::string source;           // where the data came from (a URL, a dataset name)
  std::string license;          // licence and required attribution
  std::string time_unit = "s";  // unit of "arrival": "s", "ms" or "ns"
};

// Reads a trace, choosing the importer by the path: "synthetic:..." -> generate_synthetic,
// "synthetic-week:..." -> synthetic_week.h, *.csv -> Azure CSV, *.jsonl -> Mooncake JSONL,
// *.json -> our JSON format (case-insensitive), each optionally gzipped (*.csv.gz, ...).
// For long traces, trace_stream.h reads one request at a time.
Trace read_trace_file(const std::string& path);

// Azure LLM inference trace: header TIMESTAMP,ContextTokens,GeneratedTokens (any column order),
// wall-clock timestamps "YYYY-MM-DD HH:MM:SS[.f...]"; arrivals are relative to the first row.
// `name` is used in error messages and as Trace::source.
Trace parse_azure_csv(std::istream& in, const std::string& name);

// Mooncake trace: one JSON object per line with timestamp (ms), input_length, output_length and
// hash_ids (512-token blocks).
Trace parse_mooncake_jsonl(std::istream& in, const std::string& name);

// Our JSON trace format. When `metadata` is not null it receives the file's metadata.
Trace parse_trace_json(std::istream& in, const std::string& name,
                       TraceMetadata* metadata = nullptr);

// Writes `trace` in our JSON format, one request per line, so that parse_trace_json reads back an
// equal trace (arrivals exact to the nanosecond). metadata.time_unit is ignored: the writer uses
// "s" (exact decimal seconds) for traces shorter than about 11 days and "ns" beyond. An empty
// metadata.source is replaced by trace.source.
void write_trace_json(const Trace& trace, std::ostream& out, const TraceMetadata& metadata = {});

// Divides every arrival time by rate_scale (2.0 = the same requests in half the time, twice the
// load), rounding to the nearest nanosecond. Throws std::invalid_argument unless rate_scale is
// finite and > 0, std::out_of_range if a scaled time does not fit in int64 nanoseconds.
void scale_arrivals(Trace& trace, double rate_scale);

}  // namespace llm
