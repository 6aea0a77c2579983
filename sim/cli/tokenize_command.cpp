#include "sim/cli/tokenize_command.h"

#include <optional>
#include <ostream>

#include "backends/tokenizer/tokenizer.h"
#include "core/flag_set.h"

namespace llm {

namespace {

constexpr const char* kTokenizeUsage =
    "usage: llmsim tokenize --tokenizer FILE [--add-special-tokens] [--parse-special] TEXT\n"
    "  prints the token ids of TEXT separated by spaces. FILE is a GGUF file (its "
    "tokenizer.ggml.*\n"
    "  metadata), a Hugging Face tokenizer.json, or a directory holding tokenizer.json.\n"
    "  Special tokens (BOS) are added only with --add-special-tokens; special-token text in "
    "TEXT\n"
    "  (e.g. <|eot_id|>) becomes its id only with --parse-special.\n";

}  // namespace

int run_tokenize_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  if (wants_help(args)) {
    out << kTokenizeUsage;
    return 0;
  }
  std::string path;
  bool add_special = false;
  bool parse_special = false;
  std::optional<std::string> text;
  FlagSet flags("llmsim tokenize");
  flags.nonempty({"--tokenizer"}, path)
      .boolean({"--add-special-tokens"}, add_special)
      .boolean({"--parse-special"}, parse_special)
      .positional([&text](const std::string& arg) {
        if (text) throw UsageError("expected exactly one TEXT (quote it, or put it after --)");
        text = arg;
      });
  try {
    flags.parse(args);
    if (path.empty()) throw UsageError("--tokenizer: required");
    if (!text) throw UsageError("missing TEXT");
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim tokenize", e);
  }
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    tokenizer = load_tokenizer(path);
  } catch (const std::exception& e) {
    err << "llmsim tokenize: " << e.what() << "\n";
    return kUsageExitCode;
  }
  const std::vector<int32_t> ids = tokenizer->encode(*text, add_special, parse_special);
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? " " : "") << ids[i];
  out << "\n";
  return 0;
}

}  // namespace llm
