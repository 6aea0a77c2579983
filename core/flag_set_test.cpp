// The shared flag layer: every way an argument list can be wrong, with the exact wording each
// program prints (a table), and what a good list sets.
#include "core/flag_set.h"

#include <gtest/gtest.h>

#include <sstream>

namespace llm {
namespace {

// One flag of every kind, as a program would declare them.
struct Flags {
  std::string host = "h";
  std::string path;
  int32_t port = 0;
  uint64_t big = 0;
  double scale = 1;
  std::string policy = "fcfs";
  bool quiet = false;
  bool caching = true;
  std::vector<std::string> items;
  std::vector<std::string> positionals;
  FlagSet set{"prog sub"};

  Flags() {
    set.text({"--host", "--hostname"}, host)
        .nonempty({"--out"}, path)
        .integer({"--port"}, port, 0, 65535)
        .integer({"--big"}, big, 0)
        .number({"--scale"}, scale, 0.5)
        .choice({"--policy"}, policy, {"fcfs", "priority", "lifo"})
        .boolean({"--quiet"}, quiet)
        .boolean({"--no-caching"}, caching, false)
        .list(
            "--goodput", [](const std::string& a) { return a.find(':') != std::string::npos; },
            [this](const std::string&, const std::string& v) { items.push_back(v); },
            "KEY:MS items")
        .value({"--library"},
               [](const std::string&, const std::string& v) {
                 // A library's own parse error, without the flag: the layer adds it.
                 if (v == "bad") throw std::invalid_argument("unknown library 'bad'");
               })
        .positional([this](const std::string& a) { positionals.push_back(a); });
  }
};

std::string error_of(const std::vector<std::string>& args) {
  Flags f;
  try {
    f.set.parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(FlagSet, EveryUsageErrorHasOneWording) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const Case cases[] = {
      {{"--bogus"}, "unknown flag --bogus (see prog sub --help)"},
      {{"--bogus=1"}, "unknown flag --bogus (see prog sub --help)"},
      {{"-x"}, "unknown flag -x (see prog sub --help)"},
      // A likely typo of a known flag: the nearest (core/nearest_name.h), --help and --version
      // included; nothing when none is close.
      {{"--hots"}, "unknown flag --hots: did you mean --host? (see prog sub --help)"},
      {{"--qiuet"}, "unknown flag --qiuet: did you mean --quiet? (see prog sub --help)"},
      {{"--polcy=x"}, "unknown flag --polcy: did you mean --policy? (see prog sub --help)"},
      {{"--verison"}, "unknown flag --verison: did you mean --version? (see prog sub --help)"},
      {{"--hepl"}, "unknown flag --hepl: did you mean --help? (see prog sub --help)"},
      {{"--no-cache-at-all"}, "unknown flag --no-cache-at-all (see prog sub --help)"},
      {{"--port"}, "--port: missing value"},
      {{"--quiet=yes"}, "--quiet: takes no value"},
      {{"--port", "x"}, "--port: expected an integer, got 'x'"},
      {{"--port", "8x"}, "--port: expected an integer, got '8x'"},
      {{"--port", ""}, "--port: expected an integer, got ''"},
      {{"--port", "-1"}, "--port: must be at least 0, got -1"},
      {{"--port", "70000"}, "--port: must be at most 65535, got 70000"},
      {{"--port", "99999999999999999999"},
       "--port: expected an integer, got '99999999999999999999'"},
      {{"--big", "-3"}, "--big: must be at least 0, got -3"},
      {{"--big", "18446744073709551615"}, "--big: expected an integer, got '18446744073709551615'"},
      {{"--scale", "fast"}, "--scale: expected a number, got 'fast'"},
      {{"--scale", "nan"}, "--scale: expected a number, got 'nan'"},
      {{"--scale", "inf"}, "--scale: expected a number, got 'inf'"},
      {{"--scale", "0.25"}, "--scale: must be at least 0.5, got 0.25"},
      {{"--policy", "random"}, "--policy: expected fcfs, priority or lifo, got 'random'"},
      {{"--out", ""}, "--out: empty path"},
      {{"--out="}, "--out: empty path"},
      {{"--goodput"}, "--goodput: expected one or more KEY:MS items"},
      {{"--goodput", "ttft"}, "--goodput: expected one or more KEY:MS items"},
      {{"--library", "bad"}, "--library: unknown library 'bad'"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += "[" + a + "] ";
    EXPECT_EQ(error_of(c.args), c.error) << joined;
  }
}

// A command that hands the rest of its arguments to another command's parser (llmsim sweep over
// llmsim replay's) points at its own help and suggests among both commands' flags.
TEST(FlagSet, AnErrorOfAnInnerParserBecomesTheOuterCommands) {
  FlagSet inner("llmsim replay");
  std::string out;
  inner.nonempty({"--output-dir"}, out).nonempty({"--report"}, out);
  const std::vector<std::string> own = {"--jobs", "--set"};
  auto outer_error = [&](const std::vector<std::string>& args) -> std::string {
    try {
      inner.parse(args);
    } catch (const UsageError& e) {
      return as_part_of(e, "llmsim replay", "llmsim sweep", own).what();
    }
    return "";
  };
  EXPECT_EQ(outer_error({"--jbos"}),
            "unknown flag --jbos: did you mean --jobs? (see llmsim sweep --help)");
  EXPECT_EQ(outer_error({"--reprot"}),
            "unknown flag --reprot: did you mean --report? (see llmsim sweep --help)");
  EXPECT_EQ(outer_error({"--zzz"}), "unknown flag --zzz (see llmsim sweep --help)");
  EXPECT_EQ(outer_error({"--report"}), "--report: missing value");
  EXPECT_EQ(as_part_of(UsageError("missing TRACE (see llmsim replay --help)"), "llmsim replay",
                       "llmsim sweep", own)
                .what(),
            std::string("missing TRACE (see llmsim sweep --help)"));
}

TEST(FlagSet, WantsVersionLikeWantsHelp) {
  EXPECT_TRUE(wants_version({"a", "--version"}));
  EXPECT_FALSE(wants_version({"a", "--", "--version"}));  // after "--": a positional argument
  EXPECT_FALSE(wants_version({"--versions", "-v"}));
}

TEST(FlagSet, GoodArgumentsSetTheirTargetsInBothSpellings) {
  Flags f;
  f.set.parse({"--host=a=b",
               "--port",
               "80",
               "--big=9223372036854775807",
               "--scale",
               "2.5",
               "--policy=lifo",
               "--quiet",
               "--no-caching",
               "--out",
               "d",
               "--goodput",
               "ttft:1",
               "e2e:2",
               "trace.json",
               "-",
               "-5",
               "--",
               "--port",
               "-x"});
  EXPECT_EQ(f.host, "a=b");  // only the first '=' splits
  EXPECT_EQ(f.port, 80);
  EXPECT_EQ(f.big, 9223372036854775807u);  // integer() reads int64; parse_uint_flag goes beyond
  EXPECT_EQ(f.scale, 2.5);
  EXPECT_EQ(f.policy, "lifo");
  EXPECT_TRUE(f.quiet);
  EXPECT_FALSE(f.caching);
  EXPECT_EQ(f.path, "d");
  EXPECT_EQ(f.items, (std::vector<std::string>{"ttft:1", "e2e:2"}));
  // "-", a negative number and everything after "--" are positional.
  EXPECT_EQ(f.positionals, (std::vector<std::string>{"trace.json", "-", "-5", "--port", "-x"}));
}

TEST(FlagSet, AliasesShareOneHandlerAndAValueMayStartWithDashes) {
  Flags f;
  f.set.parse({"--hostname", "--weird", "--goodput=a:1"});
  EXPECT_EQ(f.host, "--weird");
  EXPECT_EQ(f.items, (std::vector<std::string>{"a:1"}));
}

TEST(FlagSet, WithoutAPositionalHandlerAStrayArgumentIsRefused) {
  FlagSet set("prog");
  bool q = false;
  set.boolean({"--quiet"}, q);
  try {
    set.parse({"--quiet", "stray"});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unexpected argument 'stray'");
  }
}

TEST(FlagSet, RegisteringAFlagTwiceIsAProgrammingError) {
  FlagSet set("prog");
  bool q = false;
  set.boolean({"--quiet"}, q);
  EXPECT_THROW(set.boolean({"--quiet"}, q), std::logic_error);
}

TEST(FlagSet, HelpIsFoundAnywhereBeforeTheSeparator) {
  EXPECT_TRUE(wants_help({"--help"}));
  EXPECT_TRUE(wants_help({"trace.json", "--port", "1", "-h"}));
  EXPECT_FALSE(wants_help({"--port", "1"}));
  EXPECT_FALSE(wants_help({"--", "--help"}));
}

TEST(FlagSet, AFlagsNameIsTheArgumentUpToItsFirstEqualsSign) {
  EXPECT_EQ(flag_name("--jobs=4"), "--jobs");
  EXPECT_EQ(flag_name("--jobs"), "--jobs");
  EXPECT_EQ(flag_name("--slo=ttft_p99=1s"), "--slo");
  EXPECT_EQ(flag_name("trace.json"), "trace.json");
}

TEST(FlagSet, AUsageErrorIsPrintedWithTheProgramAndExitsTwo) {
  std::ostringstream err;
  EXPECT_EQ(report_usage_error(err, "llmsim replay", UsageError("--x: missing value")), 2);
  EXPECT_EQ(err.str(), "llmsim replay: --x: missing value\n");
}

TEST(FlagValues, ParsersNameTheFlagAndTheirBounds) {
  EXPECT_EQ(parse_int_flag("--n", "7", 1, 9), 7);
  EXPECT_EQ(parse_uint_flag("--seed", "18446744073709551615"), 18446744073709551615u);
  EXPECT_THROW(parse_uint_flag("--seed", "-1"), UsageError);
  EXPECT_EQ(parse_double_above_flag("--r", "0.001", 0), 0.001);
  try {
    parse_double_above_flag("--r", "0", 0);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--r: must be greater than 0, got 0");
  }
  EXPECT_EQ(parse_choice_flag("--p", "b", {"a", "b"}), "b");
  EXPECT_EQ(choice_list({"a"}), "a");
  EXPECT_EQ(choice_list({"a", "b"}), "a or b");
  EXPECT_EQ(parse_comma_list_flag("--p", "a.json"), std::vector<std::string>{"a.json"});
  EXPECT_EQ(parse_comma_list_flag("--p", "a,b c,d"), (std::vector<std::string>{"a", "b c", "d"}));
  for (const char* bad : {"", ",a", "a,", "a,,b"}) {
    try {
      parse_comma_list_flag("--p", bad);
      FAIL() << bad;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), "--p: an empty item in '" + std::string(bad) + "'");
    }
  }
  // A UsageError is an invalid_argument, so code that catches the latter still sees it.
  EXPECT_THROW(parse_int_flag("--n", "x", 0), std::invalid_argument);
}

// --collect-detailed-traces, one check for llmserve and llmsim replay: a comma list of modules.
TEST(FlagValues, DetailedTracesIsACommaListOfModules) {
  for (const char* good : {"model", "worker", "all", "engine", "model,worker", "all,engine,all"}) {
    EXPECT_NO_THROW(check_detailed_traces_flag("--collect-detailed-traces", good)) << good;
  }
  const struct {
    const char* text;
    const char* error;
  } bad[] = {
      {"gpu", "--collect-detailed-traces: expected model, worker, all or engine, got 'gpu'"},
      {"model,gpu", "--collect-detailed-traces: expected model, worker, all or engine, got 'gpu'"},
      {"", "--collect-detailed-traces: an empty item in ''"},
      {"model,", "--collect-detailed-traces: an empty item in 'model,'"},
      {"Model", "--collect-detailed-traces: expected model, worker, all or engine, got 'Model'"},
  };
  for (const auto& row : bad) {
    try {
      check_detailed_traces_flag("--collect-detailed-traces", row.text);
      ADD_FAILURE() << row.text;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), row.error);
    }
  }
}

}  // namespace
}  // namespace llm
