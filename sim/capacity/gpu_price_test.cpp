// The GPU presets' list prices (sim/capacity/gpu_price.h): each is a shipped preset's, per GPU
// (the instance's price over its 8 GPUs), with an offer, a source and a date; presets without a
// published price have none.
#include "sim/capacity/gpu_price.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "backends/sim/presets.h"

namespace llm {
namespace {

TEST(GpuPrice, EachPriceIsAPresetsPerGpuWithItsSourceAndDate) {
  struct Row {
    const char* gpu;
    double usd_per_gpu_hour;
    const char* instance;
  };
  const Row rows[] = {{"A100-40GB", 2.74470525, "p4d.24xlarge"},
                      {"A100-80GB", 3.43088125, "p4de.24xlarge"},
                      {"H100-SXM", 6.88, "p5.48xlarge"},
                      {"H200", 7.912, "p5en.48xlarge"}};
  int priced = 0;
  for (const std::string& name : gpu_preset_names()) {
    const std::optional<GpuPrice> p = gpu_list_price(name);
    if (!p) continue;
    ++priced;
    ASSERT_NE(find_gpu_preset(name), nullptr) << name;
    EXPECT_TRUE(std::regex_match(p->read_on, std::regex("20[0-9]{2}-[01][0-9]-[0-3][0-9]")))
        << name;
    EXPECT_NE(std::string(p->source), "") << name;
    const std::string line = describe_gpu_price(*p);
    EXPECT_NE(line.find(std::string("read ") + p->read_on + " from " + p->source),
              std::string::npos)
        << line;
  }
  EXPECT_EQ(priced, 4);
  for (const Row& r : rows) {
    const std::optional<GpuPrice> p = gpu_list_price(r.gpu);
    ASSERT_TRUE(p) << r.gpu;
    EXPECT_NEAR(p->usd_per_gpu_hour, r.usd_per_gpu_hour, 1e-9) << r.gpu;
    EXPECT_NE(std::string(p->offer).find(r.instance), std::string::npos) << p->offer;
  }
  // No published list price found: no default, and an alias is not a preset's name.
  for (const char* gpu : {"B200", "H100-PCIe", "L40S", "RTX-4090", "RTX-PRO-6000", "H100", ""}) {
    EXPECT_FALSE(gpu_list_price(gpu)) << gpu;
  }
}

}  // namespace
}  // namespace llm
