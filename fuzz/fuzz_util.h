// Helpers shared by the fuzz targets (fuzz/*_fuzz.cpp): the contract check every target makes
// (the code under test returns, or throws one of its documented exception types; anything else is
// a finding that aborts the run so libFuzzer saves the input), invariant checks, a per-process
// scratch file for loaders that only take a path, and where the shared vocabularies live.
// Thread-safety: none needed; libFuzzer calls a target from one thread.
#pragma once

#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>

namespace llm::fuzz {

// Prints "FINDING: what: detail" to stderr and aborts (libFuzzer reports a deadly signal and
// writes the input to crash-<sha1>).
[[noreturn]] inline void finding(std::string_view what, std::string_view detail = "") {
  std::fprintf(stderr, "FINDING: %.*s: ", static_cast<int>(what.size()), what.data());
  for (const char ch : detail.substr(0, 400)) {  // the detail may hold any bytes: escape them
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      std::fputc(c, stderr);
    } else {
      std::fprintf(stderr, "\\x%02x", c);
    }
  }
  std::fputc('\n', stderr);
  std::abort();
}

// An invariant of the code under test (not an assert: it holds in every build).
inline void require(bool ok, std::string_view what, std::string_view detail = "") {
  if (!ok) finding(what, detail);
}

// The readable name of an exception's type ("nlohmann::...::type_error").
inline std::string type_name(const std::exception& e) {
  int status = 0;
  char* name = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
  std::string out = status == 0 && name != nullptr ? name : typeid(e).name();
  std::free(name);
  return out;
}

// Runs fn(); true when it returned, false when it threw one of `Documented` (the exception types
// the header of the code under test promises). Any other exception is a finding named `what`.
template <typename... Documented, typename Fn>
bool returns_or_throws(std::string_view what, Fn&& fn) {
  try {
    fn();
    return true;
  } catch (const std::exception& e) {
    if (((dynamic_cast<const Documented*>(&e) != nullptr) || ...)) return false;
    finding(std::string(what) + " threw an undocumented " + type_name(e), e.what());
  } catch (...) {
    finding(std::string(what) + " threw a non-std exception");
  }
}

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points > U+10FFFF).
inline bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xc2 && c <= 0xdf) {
      n = 1, cp = c & 0x1fu;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2, cp = c & 0x0fu;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3, cp = c & 0x07u;
    } else {
      return false;
    }
    if (s.size() - i <= n) return false;  // truncated
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff)) {
      return false;
    }
    i += n + 1;
  }
  return true;
}

// A file of this process (in /dev/shm when there is one, else the temp folder) rewritten with
// `bytes`, for loaders that take a path; `file_name` should end as the loader expects (".json").
// Returns its path.
inline std::string write_scratch_file(std::string_view file_name, std::string_view bytes) {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path shm = "/dev/shm";
    auto p = (std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path()) /
             ("llm_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    static std::filesystem::path to_remove = p;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(to_remove, ignored);
    });
    return p;
  }();
  const std::string path = (dir / file_name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// The shared vocabulary NAME (ggml-vocab-NAME.gguf): $LLM_TOKENIZER_DATA/..., else the folder
// beside the source tree that the tests use (backends/testing/shared_testdata.h).
inline std::string shared_vocab_path(const std::string& name) {
  const char* dir = std::getenv("LLM_TOKENIZER_DATA");
  const std::string base = dir != nullptr ? dir : LLM_SOURCE_DIR "/../shared/testdata/tokenizers";
  return base + "/ggml-vocab-" + name + ".gguf";
}

// Exits the fuzzer cleanly (status 0) when `path` is missing: the target has nothing to run.
inline void skip_unless_exists(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    std::fprintf(stderr, "SKIP: %s not found (set LLM_TOKENIZER_DATA); nothing to fuzz\n",
                 path.c_str());
    std::exit(0);
  }
}

}  // namespace llm::fuzz
