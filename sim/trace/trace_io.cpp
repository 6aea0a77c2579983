// read_trace_file (chooses the reader by the path; the readers are trace_azure.cpp,
// trace_mooncake.cpp and trace_json.cpp, the synthetic specs synthetic.cpp) and scale_arrivals.
// See trace_io.h and traces/README.md for the formats and the validation rules.
#include "sim/trace/trace_io.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "sim/trace/synthetic.h"
#include "sim/trace/trace_io_internal.h"
#include "sim/trace/trace_stream.h"

namespace llm {
namespace {

using trace_internal::kMaxNsAsDouble;

std::string lower_extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

Trace read_trace_file(const std::string& path) {
  if (path.starts_with("synthetic:")) return generate_synthetic(parse_synthetic_spec(path));
  const std::string ext = lower_extension(path);
  if (path.starts_with("synthetic-week:") || ext == ".gz") {  // gzipped files: the stream readers
    Trace trace = collect_stream(*open_trace_stream(path));
    trace.source = path;
    trace.format = path.starts_with("synthetic-week:")                            ? "synthetic"
                   : lower_extension(path.substr(0, path.size() - 3)) == ".csv"   ? "azure-csv"
                   : lower_extension(path.substr(0, path.size() - 3)) == ".jsonl" ? "mooncake-jsonl"
                                                                                  : "json";
    return trace;
  }
  if (ext != ".csv" && ext != ".jsonl" && ext != ".json") {
    throw TraceError(path +
                     ": unknown trace format (accepted: .json for the llmsim JSON format, .csv "
                     "for Azure CSV, .jsonl for Mooncake JSONL, or synthetic:key=value,...)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path + ": cannot open: " + std::strerror(errno));
  if (ext == ".csv") return parse_azure_csv(in, path);
  if (ext == ".jsonl") return parse_mooncake_jsonl(in, path);
  return parse_trace_json(in, path);
}

void scale_arrivals(Trace& trace, double rate_scale) {
  if (!std::isfinite(rate_scale) || rate_scale <= 0) {
    throw std::invalid_argument("scale_arrivals: rate_scale must be finite and > 0, got " +
                                std::to_string(rate_scale));
  }
  std::vector<int64_t> scaled(trace.requests.size());  // all or nothing
  for (size_t i = 0; i < scaled.size(); ++i) {
    double t = static_cast<double>(trace.requests[i].arrival_ns) / rate_scale;
    if (std::fabs(t) >= kMaxNsAsDouble) {
      throw std::out_of_range("scale_arrivals: arrival of request " + trace.requests[i].id +
                              " does not fit in int64 nanoseconds after scaling");
    }
    scaled[i] = std::llround(t);
  }
  for (size_t i = 0; i < scaled.size(); ++i) trace.requests[i].arrival_ns = scaled[i];
}

}  // namespace llm
