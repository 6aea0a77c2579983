// llmsim: the scheduler core on a simulated clock. Subcommands: replay, tokenize, make-model.
#include <iostream>
#include <string>
#include <vector>

#include "backends/model/make_model_command.h"
#include "backends/model/tokenize_command.h"
#include "sim/replay_cli.h"
#include "ui/progress_bar.h"

namespace {

constexpr const char* kUsage = R"(usage: llmsim COMMAND [args]

commands:
  replay TRACE [flags]   replay a request trace on the simulated engine (llmsim replay --help)
  tokenize --tokenizer FILE [--add-special-tokens] TEXT
                         print TEXT's token ids (llmsim tokenize --help)
  make-model --arch llama|qwen2 --vocab FILE.gguf --dim N --layers N --heads N --out DIR
                         write a seeded random model as GGUF and safetensors
                         (llmsim make-model --help)
)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "tokenize") {
    return llm::run_tokenize_command({args.begin() + 1, args.end()}, std::cout, std::cerr);
  }
  if (args[0] == "make-model") {
    return llm::run_make_model_command({args.begin() + 1, args.end()}, std::cout, std::cerr);
  }
  if (args[0] != "replay") {
    std::cerr << "llmsim: unknown command '" << args[0] << "'\n" << kUsage;
    return 2;
  }
  args.erase(args.begin());
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << llm::replay_usage();
      return 0;
    }
  }
  llm::ReplayOptions options;
  try {
    options = llm::parse_replay_args(args);
  } catch (const llm::UsageError& e) {
    std::cerr << "llmsim replay: " << e.what() << "\n";
    return 2;
  }
  llm::ProgressBar bar("replay", options.progress);
  auto progress = [&bar](int64_t done, int64_t total) { bar.update(done, total); };
  const int code = llm::run_replay_command(options, std::cout, std::cerr, progress);
  bar.finish();
  return code;
}
