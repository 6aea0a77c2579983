// check_admission against the cases of vLLM's own admission test (tests/v1/engine/
// test_admission_control.py): the request cap counts n, the token cap does not count the new
// request, a cap of 0 refuses everything, and the request cap is checked first.
#include "core/admission_rule.h"

#include <gtest/gtest.h>

#include <string>

namespace llm {
namespace {

TEST(AdmissionRule, FollowsVllmsCheckAdmission) {
  constexpr int64_t kNone = -1;
  const std::optional<AdmissionRejection> kAdmit;
  const auto kReqs = AdmissionRejection::kMaxNumQueuedReqs;
  const auto kTokens = AdmissionRejection::kMaxNumQueuedTokens;
  const struct {
    const char* what;
    AdmissionCaps caps;
    AdmissionLoad load;
    int64_t n;
    std::optional<AdmissionRejection> want;
  } cases[] = {
      {"no caps admit everything", {kNone, kNone}, {999, 999}, 1, kAdmit},
      {"under the request cap", {10, kNone}, {5, 0}, 1, kAdmit},
      {"at the request cap", {10, kNone}, {10, 0}, 1, kReqs},
      {"n counts: 8 + 3 > 10", {10, kNone}, {8, 0}, 3, kReqs},
      {"n at the boundary: 7 + 3 = 10", {10, kNone}, {7, 0}, 3, kAdmit},
      {"a request cap of 0", {0, kNone}, {0, 0}, 1, kReqs},
      {"under the token cap", {kNone, 1000}, {0, 500}, 1, kAdmit},
      {"at the token cap", {kNone, 1000}, {0, 1000}, 1, kTokens},
      {"over the token cap", {kNone, 1000}, {0, 1500}, 1, kTokens},
      {"a token cap of 0", {kNone, 0}, {0, 0}, 1, kTokens},
      {"both caps, only the tokens full", {100, 1000}, {5, 1000}, 1, kTokens},
      {"both full: the request cap first", {10, 1000}, {10, 1000}, 1, kReqs},
      {"the new request's tokens are not counted", {kNone, 1000}, {0, 999}, 16, kAdmit},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(check_admission(c.caps, c.load, c.n), c.want) << c.what;
  }
}

TEST(AdmissionRule, VllmsMessagesNameTheCap) {
  EXPECT_NE(std::string(admission_rejection_message(AdmissionRejection::kMaxNumQueuedReqs))
                .find("currently busy"),
            std::string::npos);
  EXPECT_NE(std::string(admission_rejection_message(AdmissionRejection::kMaxNumQueuedTokens))
                .find("prefill token backlog limit"),
            std::string::npos);
}

}  // namespace
}  // namespace llm
