// The one version string of --version and GET /version: VERSION+gCOMMIT.cuda|nocuda, a PEP 440
// version with a local part, built from what CMake recorded.
#include "core/build_info.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace llm {
namespace {

TEST(BuildInfo, TheVersionStringCarriesTheVersionCommitAndCuda) {
  const BuildInfo& b = build_info();
  EXPECT_TRUE(std::regex_match(b.version, std::regex(R"(\d+\.\d+\.\d+)"))) << b.version;
  // git's abbreviated hash at configure time, or "unknown" outside a checkout.
  EXPECT_TRUE(std::regex_match(b.commit, std::regex("[0-9a-f]{7,40}|unknown"))) << b.commit;
  const std::string expected = b.version + "+" + (b.commit == "unknown" ? "" : "g") + b.commit +
                               (b.cuda ? ".cuda" : ".nocuda");
  EXPECT_EQ(version_string(), expected);
  // PEP 440: public version, '+', local segments of letters and digits separated by dots.
  EXPECT_TRUE(
      std::regex_match(version_string(), std::regex(R"(\d+(\.\d+)*\+[a-z0-9]+(\.[a-z0-9]+)*)")))
      << version_string();
}

TEST(BuildInfo, TheVersionLineSaysItInWords) {
  const BuildInfo& b = build_info();
  EXPECT_EQ(version_line("llmsim"), "llmsim " + version_string() + " (commit " + b.commit + ", " +
                                        (b.cuda ? "CUDA built in" : "without CUDA") + ")");
}

}  // namespace
}  // namespace llm
