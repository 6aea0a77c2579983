// open_trace_stream and its helpers; the streaming readers themselves are in trace_azure.cpp and
// trace_mooncake.cpp, the generators in synthetic.cpp and synthetic_week.cpp.
#include "sim/trace/trace_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "sim/trace/gz_input.h"
#include "sim/trace/synthetic.h"
#include "sim/trace/synthetic_week.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

std::string stream_lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool stream_ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A reader that owns its input.
template <typename Reader>
class TraceFileStream final : public RequestStream {
 public:
  TraceFileStream(const std::string& path, const std::string& name, bool check_order)
      : input_(path), reader_(input_.stream(), name, check_order) {}
  const TraceRequest* next() override { return reader_.next(); }

 private:
  GzInput input_;
  Reader reader_;
};

// A file (gzipped or not) as an std::istream of its own.
class GzStream final : public std::istream {
 public:
  explicit GzStream(const std::string& path) : std::istream(nullptr), input_(path) {
    rdbuf(input_.stream().rdbuf());
    exceptions(std::ios::badbit);  // a read error is rethrown as the TraceError
  }

 private:
  GzInput input_;
};

}  // namespace

std::unique_ptr<RequestStream> open_trace_stream(const std::string& path, bool check_order,
                                                 const std::string& format,
                                                 const std::string& name) {
  if (path.starts_with("synthetic-week:")) {
    return std::make_unique<WeekStream>(parse_week_spec(path));
  }
  if (path.starts_with("synthetic:")) {
    return std::make_unique<SyntheticStream>(parse_synthetic_spec(path));
  }
  const std::string shown = name.empty() ? path : name;
  std::string ext = format;
  if (ext.empty()) {
    std::string p = stream_lower(path);
    if (stream_ends_with(p, ".gz")) p.resize(p.size() - 3);
    for (const char* e : {".csv", ".jsonl", ".json"}) {
      if (stream_ends_with(p, e)) {
        ext = e;
        break;
      }
    }
  }
  if (ext == ".csv")
    return std::make_unique<TraceFileStream<AzureCsvStream>>(path, shown, check_order);
  if (ext == ".jsonl") {
    return std::make_unique<TraceFileStream<MooncakeJsonlStream>>(path, shown, check_order);
  }
  if (ext == ".json") {
    return open_json_trace_stream([path] { return std::make_unique<GzStream>(path); }, shown);
  }
  throw TraceError(shown +
                   ": unknown trace format (accepted: .json for the llmsim JSON format, .csv for "
                   "Azure CSV, .jsonl for Mooncake JSONL, each optionally .gz, - for standard "
                   "input, or synthetic:key=value,... or synthetic-week:key=value,...)");
}

std::string sniff_trace_format(const std::string& path, const std::string& name) {
  GzInput input(path);
  std::string line;
  while (std::getline(input.stream(), line)) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    if (line[first] != '{') return ".csv";
    const std::string rest = line.substr(first + 1);
    const size_t key = rest.find_first_not_of(" \t\r");
    if (key == std::string::npos || rest.compare(key, 10, "\"requests\"") == 0 ||
        rest.compare(key, 10, "\"metadata\"") == 0) {
      return ".json";
    }
    return ".jsonl";
  }
  throw TraceError(name + ": empty input");
}

std::string spool_to_file(std::istream& in, const std::string& dir) {
  std::string templ = dir + "/llmsim-stdin-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  const int fd = mkstemp(buf.data());
  if (fd < 0)
    throw TraceError("-: cannot spool standard input under " + dir + ": " + std::strerror(errno));
  close(fd);
  const std::string path(buf.data());
  std::ofstream out(path, std::ios::binary);
  if (in.peek() != std::char_traits<char>::eof()) out << in.rdbuf();  // none: an empty file
  out.flush();
  if (!out) {
    std::remove(path.c_str());
    throw TraceError("-: cannot spool standard input to " + path);
  }
  return path;
}

}  // namespace llm
