#include "sim/cli/sweep_emit.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/flag_set.h"
#include "core/pending_file.h"
#include "sim/report/html_report.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTraceMount = "/traces";
constexpr const char* kResultsMount = "/results";

// A Kubernetes object name: lower-case letters, digits and '-', at most 50 characters (room for
// the suffixes the Job controller adds), starting and ending with a letter or digit.
std::string k8s_name(const std::string& text) {
  std::string name;
  for (char c : text) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9');
    if (ok) {
      name += l;
    } else if (!name.empty() && name.back() != '-') {
      name += '-';
    }
  }
  if (name.size() > 50) name.resize(50);
  while (!name.empty() && name.back() == '-') name.pop_back();
  return name;
}

std::string quoted(const std::string& text) { return nlohmann::json(text).dump(); }

// A YAML flow sequence of JSON strings: ["llmsim", "sweep", ...].
std::string yaml_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + quoted(items[i]);
  return text + "]";
}

std::string shell_quoted(const std::string& word) {
  const std::string line = shell_command_line("", {word});
  return line.substr(1);  // shell_command_line puts a space after the (empty) program
}

std::string shell_line(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) line += (line.empty() ? "" : " ") + shell_quoted(w);
  return line;
}

// `args` with the positional TRACE (its first occurrence, before a "--" or after it) replaced.
std::vector<std::string> with_trace(std::vector<std::string> args, const std::string& trace,
                                    const std::string& mapped) {
  for (std::string& a : args) {
    if (a == trace) {
      a = mapped;
      break;
    }
  }
  return args;
}

std::string running_binary() {
  if (const char* given = std::getenv("LLMSIM"); given && *given) return given;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "llmsim" : self.string();
}

}  // namespace

EmitPlan emit_plan(const SweepOptions& o) {
  EmitPlan plan;
  plan.shards = o.emit_shards;
  plan.image = o.image;
  plan.job_dir = fs::absolute(o.out_dir).lexically_normal().string();
  plan.name = k8s_name("llmsim-sweep-" + fs::path(plan.job_dir).filename().string());
  if (plan.name.empty()) plan.name = "llmsim-sweep";
  std::vector<std::string> args =
      without_flags(o.args, {"--shards", "--emit", "--image", "--report"});
  std::string out = o.out_dir;
  std::string report = o.report;
  if (o.emit == "k8s") {
    plan.llmsim = "llmsim";
    plan.workdir = kResultsMount;
    const bool synthetic = o.base.trace_path.rfind("synthetic:", 0) == 0;
    if (!synthetic) {
      args = with_trace(
          args, o.base.trace_path,
          std::string(kTraceMount) + "/" + fs::path(o.base.trace_path).filename().string());
    }
    out = std::string(kResultsMount) + "/" + fs::path(plan.job_dir).filename().string();
    if (!report.empty()) report = out + "/" + fs::path(report).filename().string();
    args = with_flag(args, "--out", out);
  } else {
    plan.llmsim = running_binary();
    plan.workdir = fs::current_path().string();
  }
  const std::string shard = "auto/" + std::to_string(o.emit_shards);
  plan.shard_args = {"sweep"};
  for (const std::string& a : with_flag(args, "--shard", shard)) plan.shard_args.push_back(a);
  plan.merge_args = {"sweep-merge", out, "--shards", std::to_string(o.emit_shards), "--out", out};
  if (!report.empty()) {
    plan.merge_args.push_back("--report");
    plan.merge_args.push_back(report);
  }
  for (const std::string& a : o.args) {
    if (flag_name(a) == "--jobs") plan.cpus_per_task = o.jobs;
  }
  return plan;
}

std::string render_slurm_driver(const EmitPlan& p) {
  std::string s = "#!/bin/bash\n";
  s += "# Written by `llmsim sweep ... --emit slurm` (docs/cluster.md): runs the sweep's " +
       std::to_string(p.shards) + " shards as\n";
  s += "# a job array (sweep-shard.sbatch), waits for them, then merges their outputs:\n";
  s += "#   cd " + shell_quoted(p.job_dir) + " && sbatch --wait sweep.sbatch\n";
  s += "# Partition, account and time limits: sbatch's own flags or SBATCH_* variables.\n";
  s += "#SBATCH --job-name=" + p.name + "\n";
  s += "#SBATCH --output=slurm-sweep-%j.out\n";
  s += "#SBATCH --ntasks=1\n";
  s += "set -u\n";
  s += ": \"${LLMSIM:=" + p.llmsim + "}\"\n";
  s += "export LLMSIM\n";
  s += "jobs=" + shell_quoted(p.job_dir) + "\n";
  s += "sbatch --wait --array=0-" + std::to_string(p.shards - 1) +
       " --output=\"$jobs/slurm-shard-%a.out\" \"$jobs/sweep-shard.sbatch\"\n";
  s += "shards=$?\n";
  s += "cd " + shell_quoted(p.workdir) + " || exit 1\n";
  s += "# Names any shard that failed or is missing, and then writes nothing.\n";
  s += "\"$LLMSIM\" " + shell_line(p.merge_args) + " || exit $?\n";
  s += "exit $shards\n";
  return s;
}

std::string render_slurm_shard(const EmitPlan& p) {
  std::string s = "#!/bin/bash\n";
  s += "# One shard of the sweep, task SLURM_ARRAY_TASK_ID of the array sweep.sbatch submits.\n";
  s += "#SBATCH --job-name=" + p.name + "-shard\n";
  s += "#SBATCH --ntasks=1\n";
  if (p.cpus_per_task > 0) s += "#SBATCH --cpus-per-task=" + std::to_string(p.cpus_per_task) + "\n";
  s += "cd " + shell_quoted(p.workdir) + " || exit 1\n";
  s += "exec \"${LLMSIM:-" + p.llmsim + "}\" " + shell_line(p.shard_args) + "\n";
  return s;
}

namespace {

std::string k8s_pod_spec(const EmitPlan& p, const std::string& container,
                         const std::vector<std::string>& args, bool with_traces) {
  std::string s;
  s += "  template:\n";
  s += "    metadata:\n";
  s += "      labels:\n";
  s += "        app.kubernetes.io/name: llmsim-sweep\n";
  s += "    spec:\n";
  s += "      restartPolicy: Never\n";
  s += "      containers:\n";
  s += "        - name: " + container + "\n";
  s += "          image: " + quoted(p.image) + "\n";
  std::vector<std::string> command = {"llmsim"};
  command.insert(command.end(), args.begin(), args.end());
  s += "          command: " + yaml_list(command) + "\n";
  s += "          workingDir: " + quoted(kResultsMount) + "\n";
  s += "          volumeMounts:\n";
  if (with_traces) {
    s += "            - name: traces\n";
    s += "              mountPath: " + quoted(kTraceMount) + "\n";
    s += "              readOnly: true\n";
  }
  s += "            - name: results\n";
  s += "              mountPath: " + quoted(kResultsMount) + "\n";
  s += "      volumes:\n";
  if (with_traces) {
    s += "        - name: traces\n";
    s += "          persistentVolumeClaim:\n";
    s += "            claimName: llmsim-traces\n";
    s += "            readOnly: true\n";
  }
  s += "        - name: results\n";
  s += "          persistentVolumeClaim:\n";
  s += "            claimName: llmsim-results\n";
  return s;
}

// A Job's kind, name and label, up to its "spec:" line.
std::string k8s_job_head(const std::string& name) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: " + name +
         "\n  labels:\n    app.kubernetes.io/name: llmsim-sweep\nspec:\n";
}

std::string k8s_job_counts(int64_t completions, int64_t parallelism, int64_t backoff_limit) {
  return "  completions: " + std::to_string(completions) +
         "\n  parallelism: " + std::to_string(parallelism) +
         "\n  backoffLimit: " + std::to_string(backoff_limit) + "\n";
}

}  // namespace

std::string render_k8s_shard_job(const EmitPlan& p) {
  std::string s = "# Written by `llmsim sweep ... --emit k8s` (docs/cluster.md): the sweep's " +
                  std::to_string(p.shards) + " shards as an\n";
  s += "# Indexed Job; each pod runs shard JOB_COMPLETION_INDEX. Then sweep-merge.yaml merges.\n";
  s += k8s_job_head(p.name + "-shards");
  s += "  completionMode: Indexed\n";
  s += k8s_job_counts(p.shards, p.shards, p.shards);
  s += k8s_pod_spec(p, "shard", {p.shard_args.begin(), p.shard_args.end()}, true);
  return s;
}

std::string render_k8s_merge_job(const EmitPlan& p) {
  std::string s = "# Written by `llmsim sweep ... --emit k8s`: merges the shards of " + p.name +
                  "-shards once it completed.\n";
  s += k8s_job_head(p.name + "-merge");
  s += k8s_job_counts(1, 1, 0);
  s += k8s_pod_spec(p, "merge", p.merge_args, false);
  return s;
}

std::string render_k8s_script(const EmitPlan& p) {
  std::string s = "#!/bin/bash\n";
  s += "# Written by `llmsim sweep ... --emit k8s`: the shards, then the merge, with kubectl.\n";
  s += "set -euo pipefail\n";
  s += "cd \"$(dirname \"$0\")\"\n";
  s += "kubectl apply -f sweep-shards.yaml\n";
  s += "kubectl wait --for=condition=complete --timeout=\"${TIMEOUT:-24h}\" job/" + p.name +
       "-shards || true\n";
  s += "# The merge names any shard that failed or is missing, and then writes nothing.\n";
  s += "kubectl apply -f sweep-merge.yaml\n";
  s += "kubectl wait --for=condition=complete --timeout=\"${TIMEOUT:-24h}\" job/" + p.name +
       "-merge\n";
  return s;
}

std::vector<std::string> emit_sweep_jobs(const SweepOptions& options) {
  const EmitPlan plan = emit_plan(options);
  std::vector<std::pair<std::string, std::string>> files;
  if (options.emit == "slurm") {
    files = {{"sweep.sbatch", render_slurm_driver(plan)},
             {"sweep-shard.sbatch", render_slurm_shard(plan)}};
  } else {
    files = {{"sweep-shards.yaml", render_k8s_shard_job(plan)},
             {"sweep-merge.yaml", render_k8s_merge_job(plan)},
             {"sweep-k8s.sh", render_k8s_script(plan)}};
  }
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    const fs::path path = fs::path(options.out_dir) / name;
    PendingFile file("--out", path);
    file.stream() << text;
    file.commit();
    if (name.find(".sbatch") != std::string::npos || name.find(".sh") != std::string::npos) {
      fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add);
    }
    written.push_back(path.string());
  }
  return written;
}

std::string emit_submit_hint(const SweepOptions& options) {
  const std::string dir = shell_quoted(options.out_dir);
  if (options.emit == "slurm") {
    return "submit: cd " + dir + " && sbatch --wait sweep.sbatch\n";
  }
  return "submit: " + dir +
         "/sweep-k8s.sh (the claims llmsim-traces and llmsim-results must "
         "exist; the trace goes into llmsim-traces)\n";
}

}  // namespace llm
