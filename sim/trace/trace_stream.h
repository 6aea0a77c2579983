// Trace readers that stream (sim/trace/request_stream.h): a replay reads a long trace one request
// at a time instead of holding it whole. The Azure CSV and Mooncake JSONL readers stream line by
// line (gzip-compressed too: *.csv.gz, *.jsonl.gz), our JSON format (*.json, *.json.gz) a request
// at a time after a first pass over the document, and the synthetic generators stream. The rules
// and messages are those of trace_io.h's parse_* functions, which collect these streams.
// Thread-safety: a stream is used by one thread; the functions are reentrant.
#pragma once

#include <functional>
#include <istream>
#include <memory>
#include <string>

#include "sim/trace/request_stream.h"
#include "sim/trace/trace_io.h"

namespace llm {

// Azure CSV rows as they are read. check_order false: rows out of time order are passed on (for
// --sort-arrivals), each relative to the first row.
class AzureCsvStream final : public RequestStream {
 public:
  // Reads the header; throws TraceError for a bad one.
  AzureCsvStream(std::istream& in, std::string name, bool check_order = true);
  const TraceRequest* next() override;

 private:
  bool next_line();

  std::istream& in_;
  std::string name_;
  bool check_order_;
  std::string line_;
  int64_t line_number_ = 0;
  int column_[3] = {0, 1, 2};
  int64_t rows_ = 0;
  int64_t first_seconds_ = 0, first_nanos_ = 0;
  int64_t previous_line_ = 0, previous_arrival_ = 0;
  TraceRequest current_;
};

// Mooncake JSON lines as they are read.
class MooncakeJsonlStream final : public RequestStream {
 public:
  MooncakeJsonlStream(std::istream& in, std::string name, bool check_order = true);
  const TraceRequest* next() override;

 private:
  std::istream& in_;
  std::string name_;
  bool check_order_;
  std::string line_;
  int64_t line_number_ = 0;
  int64_t rows_ = 0;
  int64_t previous_line_ = 0, previous_arrival_ = 0;
  TraceRequest current_;
};

// Our JSON format a request at a time: `open` gives the document from its start for each pass
// (the first checks the syntax of the whole document and its top level, the second reads the
// requests; a repeated id reads it once more to name the id's first use). Memory: one request's
// text and value, and the ids seen (sim/trace/seen_ids.h). The messages are parse_trace_json's,
// in the same order (a syntax error anywhere comes before any other). Throws TraceError.
std::unique_ptr<RequestStream> open_json_trace_stream(
    std::function<std::unique_ptr<std::istream>()> open, const std::string& name,
    TraceMetadata* metadata = nullptr);

// Opens a trace for streaming, the format chosen as read_trace_file does (synthetic:...,
// synthetic-week:..., *.csv, *.jsonl, *.json, each file optionally *.gz). `format` (".csv",
// ".jsonl" or ".json") overrides the path's extension (standard input spooled to a file);
// `name` names the trace in messages (default: the path). check_order false: CSV and JSONL rows
// out of time order are passed on instead of refused (the JSON format always refuses them).
// Throws TraceError.
std::unique_ptr<RequestStream> open_trace_stream(const std::string& path, bool check_order = true,
                                                 const std::string& format = "",
                                                 const std::string& name = "");

// The format of a trace by its contents (after gzip): ".csv" when the first non-blank line does not
// start with '{', ".json" when it opens our JSON format (a "requests" or "metadata" key, or a
// lone '{'), else ".jsonl". Throws TraceError for an unreadable or empty file.
std::string sniff_trace_format(const std::string& path, const std::string& name);

// Copies `in` (standard input) into a new file under `dir` and returns its path; the caller
// removes it. Throws TraceError.
std::string spool_to_file(std::istream& in, const std::string& dir);

}  // namespace llm
