// --fault specs: the three kinds with their times, the shortest text back, and an error naming the
// part that is wrong for each kind of mistake.
#include "sim/faults/fault_window.h"

#include <gtest/gtest.h>

#include <string>

namespace llm {
namespace {

constexpr int64_t kFaultSec = 1'000'000'000;

TEST(FaultWindow, ParsesEachKindWithItsTimes) {
  struct Row {
    const char* spec;
    FaultWindow want;
    const char* text;  // fault_spec_text
    const char* description;
  };
  const Row rows[] = {
      {"engine-down:1:2m:6m",
       {FaultKind::kEngineDown, 1, 0, 1, 120 * kFaultSec, 360 * kFaultSec},
       "engine-down:1:2m:6m",
       "engine 1 down from 2m to 6m"},
      {"engine-down:0:0:90s",
       {FaultKind::kEngineDown, 0, 0, 1, 0, 90 * kFaultSec},
       "engine-down:0:0s:1m30s",
       "engine 0 down from 0s to 1m30s"},
      {"http-5xx:20:1h:1h30m",
       {FaultKind::kHttp5xx, -1, 20, 1, 3600 * kFaultSec, 5400 * kFaultSec},
       "http-5xx:20:1h:1h30m",
       "20% of requests answered 5xx from 1h to 1h30m"},
      {"http-5xx:2.5%:10s:500s",
       {FaultKind::kHttp5xx, -1, 2.5, 1, 10 * kFaultSec, 500 * kFaultSec},
       "http-5xx:2.5:10s:8m20s",
       "2.5% of requests answered 5xx from 10s to 8m20s"},
      {"slow:3:4:10m:20m",
       {FaultKind::kSlow, 3, 0, 4, 600 * kFaultSec, 1200 * kFaultSec},
       "slow:3:4:10m:20m",
       "engine 3 steps 4x slower from 10m to 20m"},
      {"slow:0:1.5x:500ms:1s",
       {FaultKind::kSlow, 0, 0, 1.5, kFaultSec / 2, kFaultSec},
       "slow:0:1.5:500ms:1s",
       "engine 0 steps 1.5x slower from 500ms to 1s"},
  };
  for (const Row& r : rows) {
    const FaultWindow f = parse_fault(r.spec);
    EXPECT_EQ(f, r.want) << r.spec;
    EXPECT_EQ(fault_spec_text(f), r.text) << r.spec;
    EXPECT_EQ(fault_description(f), r.description) << r.spec;
    EXPECT_EQ(parse_fault(fault_spec_text(f)), f) << r.spec;  // the text reads back
  }
}

TEST(FaultWindow, ActiveFromItsStartUntilJustBeforeItsEnd) {
  const FaultWindow f = parse_fault("engine-down:0:10s:20s");
  EXPECT_FALSE(f.active_at(10 * kFaultSec - 1));
  EXPECT_TRUE(f.active_at(10 * kFaultSec));
  EXPECT_TRUE(f.active_at(20 * kFaultSec - 1));
  EXPECT_FALSE(f.active_at(20 * kFaultSec));
}

TEST(FaultWindow, ErrorsNameThePartThatIsWrong) {
  struct Row {
    const char* spec;
    const char* message;
  };
  const Row rows[] = {
      {"",
       "unknown fault '': expected engine-down:ENGINE:FROM:TO, http-5xx:PERCENT:FROM:TO or "
       "slow:ENGINE:FACTOR:FROM:TO"},
      {"engine-up:0:1m:2m", "unknown fault 'engine-up'"},
      {"engine-down:0:1m",
       "expected engine-down:ENGINE:FROM:TO (4 parts separated by ':'), got 3 parts"},
      {"slow:0:1m:2m", "expected slow:ENGINE:FACTOR:FROM:TO (5 parts separated by ':'), got 4"},
      {"http-5xx:20:1m:2m:3m", "expected http-5xx:PERCENT:FROM:TO (4 parts"},
      {"engine-down:x:1m:2m", "ENGINE 'x' is not an engine index (0, 1, ...)"},
      {"engine-down:-1:1m:2m", "ENGINE '-1' is not an engine index"},
      {"engine-down:1.5:1m:2m", "ENGINE '1.5' is not an engine index"},
      {"http-5xx:0:1m:2m", "PERCENT '0' is not a share of requests above 0 and at most 100"},
      {"http-5xx:101:1m:2m", "PERCENT '101' is not a share"},
      {"http-5xx:lots:1m:2m", "PERCENT 'lots' is not a share"},
      {"slow:0:0:1m:2m", "FACTOR '0' is not a positive number"},
      {"slow:0:fast:1m:2m", "FACTOR 'fast' is not a positive number"},
      {"engine-down:0:soon:2m", "FROM 'soon' is not a time such as 0, 90s, 10m or 1h"},
      {"engine-down:0:1m:2", "TO '2' is not a time such as 0, 90s, 10m or 1h"},
      {"engine-down:0:-1m:2m", "FROM '-1m' is not a time"},
      {"engine-down:0:2m:1m", "TO '1m' is not after FROM '2m'"},
      {"http-5xx:20:1m:1m", "TO '1m' is not after FROM '1m'"},
  };
  for (const Row& r : rows) {
    try {
      parse_fault(r.spec);
      ADD_FAILURE() << r.spec << " was accepted";
    } catch (const FaultSpecError& e) {
      EXPECT_NE(std::string(e.what()).find(r.message), std::string::npos)
          << r.spec << ": " << e.what();
    }
  }
}

TEST(FaultWindow, EnginesMustBeOnesTheReplayHas) {
  const std::vector<FaultWindow> faults = {parse_fault("http-5xx:5:0:1m"),
                                           parse_fault("slow:1:2:0:1m")};
  EXPECT_NO_THROW(check_fault_engines(faults, 2));
  try {
    check_fault_engines(faults, 1);
    ADD_FAILURE() << "engine 1 of 1 was accepted";
  } catch (const FaultSpecError& e) {
    EXPECT_STREQ(e.what(),
                 "slow:1:2:0s:1m: ENGINE 1 is not an engine of this replay "
                 "(--data-parallel-size 1: engines 0 to 0)");
  }
  EXPECT_EQ(faults_text(faults),
            "http-5xx:5:0s:1m (5% of requests answered 5xx from 0s to 1m); "
            "slow:1:2:0s:1m (engine 1 steps 2x slower from 0s to 1m)");
}

}  // namespace
}  // namespace llm
