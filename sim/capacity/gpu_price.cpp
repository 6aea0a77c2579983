#include "sim/capacity/gpu_price.h"

namespace llm {
namespace {

// The AWS Price List figures as two public transcriptions recorded them (the AWS pricing pages
// themselves could not be read from where this was written): datareceipts/data-receipts'
// 109-gpu-pricing/hyperscalers.json (AWS rows retrieved 2026-11-09), and dstack's offer listing
// in dstackai/dstack pull request #4110 (2026-08-06) for p5en.48xlarge.
constexpr const char* kDataReceipts =
    "github.com/datareceipts/data-receipts 109-gpu-pricing/hyperscalers.json (AWS Price List)";
constexpr GpuPrice kPrices[] = {
    {"A100-40GB", 21.957642 / 8, "AWS EC2 p4d.24xlarge (8 GPUs) on-demand, us-east-1, $21.957642/h",
     kDataReceipts, "2026-11-09"},
    {"A100-80GB", 27.44705 / 8, "AWS EC2 p4de.24xlarge (8 GPUs) on-demand, us-east-1, $27.44705/h",
     kDataReceipts, "2026-11-09"},
    {"H100-SXM", 55.04 / 8, "AWS EC2 p5.48xlarge (8 GPUs) on-demand, us-east-1, $55.04/h",
     kDataReceipts, "2026-11-09"},
    {"H200", 63.296 / 8, "AWS EC2 p5en.48xlarge (8 GPUs) on-demand, us-east-1, $63.296/h",
     "github.com/dstackai/dstack pull request 4110 (dstack offer -b aws)", "2026-08-06"},
};

}  // namespace

std::optional<GpuPrice> gpu_list_price(std::string_view gpu) {
  for (const GpuPrice& p : kPrices) {
    if (gpu == p.gpu) return p;
  }
  return std::nullopt;
}

std::string describe_gpu_price(const GpuPrice& price) {
  return std::string(price.offer) + ", read " + price.read_on + " from " + price.source;
}

}  // namespace llm
