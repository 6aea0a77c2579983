// A temporary folder for tests that read trace files (sim/trace/trace_stream_test.cpp,
// sim/cli/replay_stream_cli_test.cpp): write(name, text, gzip) puts a file there, gzipped or
// not, and returns its path; the folder is removed with the object. Header-only (sim/trace/testing/
// is not built into a library). Thread-safety: one object per test.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace llm::testing {

class TraceTempDir {
 public:
  // A new folder /tmp/PREFIX-XXXXXX.
  explicit TraceTempDir(const std::string& prefix) {
    std::string templ = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << templ << " failed";
    dir_ = templ;
  }
  ~TraceTempDir() { std::filesystem::remove_all(dir_); }
  TraceTempDir(const TraceTempDir&) = delete;
  TraceTempDir& operator=(const TraceTempDir&) = delete;

  // Writes `text` to DIR/name (gzip-compressed when `gzip`) and returns that path.
  std::string write(const std::string& name, const std::string& text, bool gzip = false) const {
    const std::string path = dir_ + "/" + name;
    if (gzip) {
      gzFile f = gzopen(path.c_str(), "wb");
      if (f == nullptr) {
        ADD_FAILURE() << "gzopen " << path << " failed";
        return path;
      }
      gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
      gzclose(f);
    } else {
      std::ofstream(path, std::ios::binary) << text;
    }
    return path;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace llm::testing
