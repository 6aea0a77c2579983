// Tests for the sweep grid (sim/sweep/sweep_grid.h): the --set parser and its errors, the replay
// flags of a point, folder names, and the grid as the full cartesian product.
#include "sim/sweep/sweep_grid.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/flag_values.h"

namespace llm {
namespace {

TEST(SweepAxis, ParsesFlagAndValuesInOrder) {
  const SweepAxis axis = parse_sweep_axis("max-num-seqs=256,64,128");
  EXPECT_EQ(axis.spec, "max-num-seqs=256,64,128");
  EXPECT_EQ(axis.flag, "max-num-seqs");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"256", "64", "128"}));
  EXPECT_EQ(parse_sweep_axis("--gpu=H200").flag, "gpu");  // dashes are tolerated
  EXPECT_EQ(parse_sweep_axis("profile=a=b.json").values,
            (std::vector<std::string>{"a=b.json"}));  // only the first '=' splits
}

TEST(SweepAxis, BadSpecsNameTheSetAndWhatIsWrong) {
  const struct {
    const char* spec;
    const char* message;
  } cases[] = {
      {"max-num-seqs", "--set max-num-seqs: expected FLAG=V1,V2,..."},
      {"=1,2", "--set =1,2: empty flag name"},
      {"--=1", "--set --=1: empty flag name"},
      {"max-num-seqs=", "--set max-num-seqs=: no values (an empty grid)"},
      {"max-num-seqs=1,,2", "--set max-num-seqs=1,,2: empty value"},
      {"max-num-seqs=1,", "--set max-num-seqs=1,: empty value"},
      {"gpu=H200,H200", "--set gpu=H200,H200: value 'H200' given twice"},
  };
  for (const auto& c : cases) {
    try {
      parse_sweep_axis(c.spec);
      ADD_FAILURE() << c.spec << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.message, 0), 0u) << c.spec << ": " << e.what();
    }
  }
}

TEST(SweepGrid, RefusesNoAxesAndAFlagSweptTwice) {
  EXPECT_THROW(expand_sweep_grid({}), UsageError);
  try {
    expand_sweep_grid({parse_sweep_axis("gpu=H200"), parse_sweep_axis("gpu=B200")});
    ADD_FAILURE() << "gpu swept twice was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--set gpu=B200: gpu is swept by another --set");
  }
}

TEST(SweepGrid, FirstAxisVariesSlowest) {
  const auto points = expand_sweep_grid({parse_sweep_axis("a=1,2"), parse_sweep_axis("b=x,y,z")});
  std::vector<std::string> labels;
  for (const SweepPoint& p : points) labels.push_back(sweep_point_label(p));
  EXPECT_EQ(labels, (std::vector<std::string>{"a=1 b=x", "a=1 b=y", "a=1 b=z", "a=2 b=x", "a=2 b=y",
                                              "a=2 b=z"}));
}

TEST(SweepSettingArgs, ValuesBecomeFlagsAndBooleansSwitches) {
  const struct {
    SweepSetting setting;
    std::vector<std::string> args;
  } cases[] = {
      {{"max-num-seqs", "64"}, {"--max-num-seqs=64"}},
      {{"gpu", "my gpu.json"}, {"--gpu=my gpu.json"}},
      {{"async-scheduling", "true"}, {"--async-scheduling"}},
      {{"async-scheduling", "false"}, {"--no-async-scheduling"}},
      {{"enable-prefix-caching", "false"}, {"--no-enable-prefix-caching"}},
  };
  for (const auto& c : cases) EXPECT_EQ(sweep_setting_args(c.setting), c.args) << c.args[0];
  EXPECT_EQ(sweep_point_args({{"a", "1"}, {"b", "false"}}),
            (std::vector<std::string>{"--a=1", "--no-b"}));
}

TEST(SweepPointDirName, IsPaddedIndexAndSafeSettings) {
  const SweepPoint point = {{"max-num-seqs", "64"}, {"profile", "../cal/h200 run.json"}};
  EXPECT_EQ(sweep_point_dir_name(3, 18, point), "03_max-num-seqs=64_profile=.._cal_h200_run.json");
  EXPECT_EQ(sweep_point_dir_name(3, 10, point).substr(0, 2), "3_");
  EXPECT_EQ(sweep_point_dir_name(7, 1000, {{"a", "1"}}), "007_a=1");
}

RC_GTEST_PROP(SweepGrid, IsTheFullCartesianProductInOrder, ()) {
  const int num_axes = *rc::gen::inRange(1, 4);
  std::vector<SweepAxis> axes;
  size_t expected = 1;
  for (int a = 0; a < num_axes; ++a) {
    SweepAxis axis;
    axis.flag = "flag" + std::to_string(a);
    const int n = *rc::gen::inRange(1, 5);
    for (int v = 0; v < n; ++v) axis.values.push_back(std::to_string(v * 7 + a));
    axis.spec = axis.flag + "=...";
    expected *= axis.values.size();
    axes.push_back(axis);
  }
  const std::vector<SweepPoint> points = expand_sweep_grid(axes);
  RC_ASSERT(points.size() == expected);
  std::set<std::string> labels, dirs;
  for (size_t i = 0; i < points.size(); ++i) {
    labels.insert(sweep_point_label(points[i]));
    dirs.insert(sweep_point_dir_name(i, points.size(), points[i]));
    // Point i is the mixed-radix number i, the last axis the fastest digit.
    size_t rest = i;
    for (size_t a = axes.size(); a-- > 0;) {
      RC_ASSERT(points[i][a].flag == axes[a].flag);
      RC_ASSERT(points[i][a].value == axes[a].values[rest % axes[a].values.size()]);
      rest /= axes[a].values.size();
    }
  }
  RC_ASSERT(labels.size() == expected);  // every combination once
  RC_ASSERT(dirs.size() == expected);
}

}  // namespace
}  // namespace llm
