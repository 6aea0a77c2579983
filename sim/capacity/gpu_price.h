// Published on-demand list prices per GPU-hour for some of the GPU presets, each with where it
// was read and when: `llmsim capacity`'s cost when --gpu-hour-cost is not given. Only prices
// that a cloud provider publishes as a list price (AWS EC2 on-demand, us-east-1) are here; a
// preset without one (B200, H100-PCIe, L40S, RTX-4090, RTX-PRO-6000) gets no default and its
// capacity answer no cost. Prices change: each entry says its date, and the output names it.
// Thread-safety: constant data and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llm {

struct GpuPrice {
  const char* gpu;          // the GPU preset's name (backends/sim/gpus/NAME.json)
  double usd_per_gpu_hour;  // instance price / GPUs in the instance
  const char* offer;        // "AWS EC2 p5.48xlarge (8 GPUs) on-demand, us-east-1, $55.04/h"
  const char* source;       // where the price was read (a provider page or its transcription)
  const char* read_on;      // the date it was read, YYYY-MM-DD
};

// The price of the preset named `gpu` (its canonical name, not an alias); none when unknown.
std::optional<GpuPrice> gpu_list_price(std::string_view gpu);

// "AWS EC2 p5.48xlarge (8 GPUs) on-demand, us-east-1, $55.04/h, read 2026-11-09 from SOURCE":
// the provenance line printed with a cost at a default price.
std::string describe_gpu_price(const GpuPrice& price);

}  // namespace llm
