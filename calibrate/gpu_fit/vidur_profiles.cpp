// Reader of Vidur's H100 profiles: Llama-2-7B operators (mlp.csv, medians in ms, per tensor-
// parallel degree) and the DGX H100 all-reduce (all_reduce.csv).
// Thread-safety: plain functions.
#include <filesystem>
#include <string>
#include <vector>

#include "calibrate/gpu_fit/csv_table.h"
#include "calibrate/gpu_fit/profile_readers.h"
#include "calibrate/gpu_fit/truth_models.h"

namespace llm {

std::vector<OpSample> read_vidur_profiles(const std::string& truth_root) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(truth_root) / "op-profiles" / "vidur" / "data" / "profiling";
  std::vector<OpSample> out;
  {
    const CsvTable t = CsvTable::read(
        (root / "compute" / "h100" / "meta-llama" / "Llama-2-7b-hf" / "mlp.csv").string());
    const ModelShape m = truth_model(truth_root, "meta-llama/Llama-2-7b-hf");
    struct Op {
      const char* column;
      const char* name;
    };
    const Op ops[] = {
        {"attn_pre_proj", "qkv"},
        {"attn_post_proj", "o_proj"},
        {"mlp_up_proj", "gate_up"},
        {"mlp_down_proj", "down"},
    };
    for (size_t i = 0; i < t.rows(); ++i) {
      const int64_t tp = static_cast<int64_t>(t.number(i, "num_tensor_parallel_workers"));
      const double n = t.number(i, "num_tokens");
      const RankShape r = rank_shape(m, tp);
      for (const Op& op : ops) {
        OpSample s;
        s.card = "H100-SXM";
        s.origin = "vidur";
        s.source = t.where(i) + " " + op.column;
        s.group = "Llama-2-7b-hf tp" + std::to_string(tp) + " " + op.name + " (vidur)";
        s.measured_ns = t.number(i, std::string("time_stats.") + op.column + ".median") * 1e6;
        const std::string name = op.name;
        if (name == "qkv") s.gemms = {{r.qkv, 2.0, n}};
        if (name == "o_proj") s.gemms = {{r.attn_out, 2.0, n}};
        if (name == "gate_up") s.gemms = {{r.gate_up, 2.0, n}};
        if (name == "down") s.gemms = {{r.down, 2.0, n}};
        // The norms, activation, rotary and add are PyTorch's eager kernels here, not vLLM's
        // fused ones: only the GEMMs are read.
        if (!s.gemms.empty()) out.push_back(s);
      }
    }
  }
  {
    const CsvTable t = CsvTable::read((root / "network" / "h100_dgx" / "all_reduce.csv").string());
    // Messages of 4 MiB and more only: below that the profile times NCCL launched eagerly
    // (30-40 us), where vLLM runs its custom all-reduce inside CUDA graphs (4-5 us in BLIS's
    // profiles); the large ones measure the bus.
    for (size_t i = 0; i < t.rows(); ++i) {
      if (t.number(i, "size") < 4.0 * 1024 * 1024) continue;
      OpSample s;
      s.card = "H100-SXM";
      s.origin = "vidur";
      s.kind = OpKind::kAllreduce;
      s.source = t.where(i);
      s.gpus = static_cast<int64_t>(t.number(i, "num_workers"));
      s.group = "all-reduce " + std::to_string(s.gpus) + " GPUs (vidur)";
      s.bytes = t.number(i, "size");
      s.measured_ns = t.number(i, "time_stats.all_reduce.median") * 1e6;
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace llm
