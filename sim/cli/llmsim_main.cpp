// llmsim: the scheduler core on a simulated clock, and its tools. Each command is a function
// run_X_command(args, out, err) in sim/cli/ returning the exit code (0 ok, 2 bad usage).
#include <iostream>
#include <string>
#include <vector>

#include "core/build_info.h"
#include "core/flag_set.h"
#include "core/nearest_name.h"
#include "sim/cli/alerts_command.h"
#include "sim/cli/calibrate_command.h"
#include "sim/cli/capacity_command.h"
#include "sim/cli/dst_command.h"
#include "sim/cli/fidelity_command.h"
#include "sim/cli/make_model_command.h"
#include "sim/cli/price_steps_command.h"
#include "sim/cli/replay_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/cli/sweep_merge_command.h"
#include "sim/cli/tokenize_command.h"

namespace {

constexpr const char* kUsage = R"(usage: llmsim COMMAND [args]
       llmsim --version        the version, the commit and whether CUDA is built in (also
                               llmsim COMMAND --version)

commands:
  replay TRACE [flags]   replay a request trace on the simulated engine (llmsim replay --help)
  sweep TRACE --set FLAG=V1,V2,... [flags]
                         replay every combination of the swept flags in parallel, ranked
                         (llmsim sweep --help); --shard I/N runs one shard of the grid,
                         --shards N --emit slurm|k8s writes cluster jobs (docs/cluster.md)
  sweep-merge DIR... --out DIR
                         join the outputs of a sweep's shards into the whole sweep's
                         (llmsim sweep-merge --help)
  tokenize --tokenizer FILE [--add-special-tokens] [--parse-special] TEXT
                         print TEXT's token ids (llmsim tokenize --help)
  make-model --arch llama|qwen2 --vocab FILE.gguf --dim N --layers N --heads N --out DIR
                         write a seeded random model as GGUF and safetensors
                         (llmsim make-model --help)
  calibrate --backend cpu --model PATH --out FILE.json | --url URL --out FILE.json
                         measure a real engine into a profile for replay --profile
                         (llmsim calibrate --help)
  fidelity TRACE --url URL --profile FILE.json
                         how well a profile predicts the real server on TRACE
                         (llmsim fidelity --help)
  capacity TRACE --slo KEY=V,... [--search FLAG=V1,...]
                         the fewest engines meeting the SLOs, and the busiest hour's capacity
                         signals (llmsim capacity --help); --shard I/N searches one shard of
                         the --search candidates
  capacity-merge DIR...  join a capacity search's shards (llmsim capacity-merge --help)
  dst --seeds N [--start S] [--verbose]
                         deterministic simulation testing: random traces, configurations and
                         faults, invariants checked after every step (llmsim dst --help)
  alerts TRACE --rules FILE.yml [flags]
                         when the rule file's alerts would have fired on the replay
                         (llmsim alerts --help)
  price-steps STEPLOG --profile FILE.json
                         price a real engine's logged steps (llmserve --step-log) with a profile,
                         by kind of step (llmsim price-steps --help)
)";

using CommandFn = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&);

struct Command {
  const char* name;
  CommandFn run;
};

constexpr Command kCommands[] = {
    {"replay", llm::run_replay_command},
    {"tokenize", llm::run_tokenize_command},
    {"make-model", llm::run_make_model_command},
    {"calibrate", llm::run_calibrate_command},
    {"fidelity", llm::run_fidelity_command},
    {"dst", llm::run_dst_command},
    {"alerts", llm::run_alerts_command},
    {"sweep", llm::run_sweep_command},
    {"capacity", llm::run_capacity_command},
    {"price-steps", llm::run_price_steps_command},
    {"sweep-merge", llm::run_sweep_merge_command},
    {"capacity-merge", llm::run_capacity_merge_command},
};

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << llm::version_line("llmsim") << "\n";
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  std::vector<std::string> names = {"--help", "--version"};  // what a mistyped command may be
  for (const Command& command : kCommands) {
    if (args[0] != command.name) {
      names.emplace_back(command.name);
      continue;
    }
    // llmsim COMMAND --version, unless --help asks for the command's usage.
    if (llm::wants_version(rest) && !llm::wants_help(rest)) {
      std::cout << llm::version_line("llmsim") << "\n";
      return 0;
    }
    return command.run(rest, std::cout, std::cerr);
  }
  const std::string nearest = llm::nearest_name(args[0], names);
  std::cerr << "llmsim: unknown command '" << args[0] << "'"
            << (nearest.empty() ? "" : "; did you mean '" + nearest + "'?") << "\n"
            << kUsage;
  return 2;
}
