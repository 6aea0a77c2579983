// `llmsim sweep ... --shards N --emit slurm|k8s --out DIR`: instead of running the sweep, writes
// into DIR the job files that run its N shards on a cluster engine and then merge them
// (docs/cluster.md). Slurm: sweep.sbatch, a batch job that submits sweep-shard.sbatch as a job
// array of N tasks (--array=0-(N-1); each task runs `llmsim sweep ... --shard auto/N`), waits for
// it and runs `llmsim sweep-merge`, so that `cd DIR && sbatch --wait sweep.sbatch` returns once the
// merged sweep.csv is in place. Kubernetes: sweep-shards.yaml, an Indexed Job (completionMode
// Indexed, completions N) reading the trace from the volume of claim llmsim-traces at /traces and
// writing to the claim llmsim-results at /results, sweep-merge.yaml, the Job that merges, and
// sweep-k8s.sh, which applies one after the other with kubectl.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <string>
#include <vector>

#include "sim/cli/sweep_command.h"

namespace llm {

// What the job files run; filled from the options by emit_plan, given directly by tests.
struct EmitPlan {
  int shards = 1;
  std::string llmsim;                   // the binary (the running one, absolute)
  std::string workdir;                  // Slurm: the directory the sweep was emitted from
  std::string job_dir;                  // DIR, absolute
  std::string name;                     // "llmsim-sweep-DIRNAME", a Kubernetes name
  std::string image;                    // k8s
  std::vector<std::string> shard_args;  // after "llmsim": sweep ... --shard auto/N
  std::vector<std::string> merge_args;  // after "llmsim": sweep-merge OUT --out OUT ...
  int cpus_per_task = 0;                // --jobs when given (0: the engine's default)
};

// The plan of `options` for its --emit (k8s: the trace and --out mapped into the volumes).
EmitPlan emit_plan(const SweepOptions& options);

std::string render_slurm_driver(const EmitPlan& plan);
std::string render_slurm_shard(const EmitPlan& plan);
std::string render_k8s_shard_job(const EmitPlan& plan);
std::string render_k8s_merge_job(const EmitPlan& plan);
std::string render_k8s_script(const EmitPlan& plan);

// Writes the files of options.emit into options.out_dir (each whole or not at all) and returns
// their paths. std::runtime_error when one cannot be written.
std::vector<std::string> emit_sweep_jobs(const SweepOptions& options);

// How to submit what emit_sweep_jobs wrote, for the terminal.
std::string emit_submit_hint(const SweepOptions& options);

}  // namespace llm
