#include "backends/model/tokenize_command.h"

#include <optional>
#include <ostream>

#include "backends/model/tokenizer.h"

namespace llm {

namespace {

constexpr const char* kUsage =
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
  std::string path;
  bool add_special = false;
  bool parse_special = false;
  std::optional<std::string> text;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out << kUsage;
      return 0;
    }
    if (a == "--tokenizer") {
      if (i + 1 >= args.size()) {
        err << "llmsim tokenize: --tokenizer needs a FILE\n" << kUsage;
        return 2;
      }
      path = args[++i];
    } else if (a.rfind("--tokenizer=", 0) == 0) {
      path = a.substr(12);
    } else if (a == "--add-special-tokens") {
      add_special = true;
    } else if (a == "--parse-special") {
      parse_special = true;
    } else if (a == "--") {
      if (i + 2 != args.size() || text) {
        err << "llmsim tokenize: expected exactly one TEXT\n" << kUsage;
        return 2;
      }
      text = args[++i];
    } else if (a.size() > 1 && a.rfind("--", 0) == 0) {
      err << "llmsim tokenize: unknown flag '" << a << "'\n" << kUsage;
      return 2;
    } else if (text) {
      err << "llmsim tokenize: expected exactly one TEXT (quote it)\n" << kUsage;
      return 2;
    } else {
      text = a;
    }
  }
  if (path.empty() || !text) {
    err << "llmsim tokenize: " << (path.empty() ? "--tokenizer FILE" : "TEXT") << " is required\n"
        << kUsage;
    return 2;
  }
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    tokenizer = load_tokenizer(path);
  } catch (const std::exception& e) {
    err << "llmsim tokenize: " << e.what() << "\n";
    return 2;
  }
  const std::vector<int32_t> ids = tokenizer->encode(*text, add_special, parse_special);
  for (size_t i = 0; i < ids.size(); ++i) out << (i ? " " : "") << ids[i];
  out << "\n";
  return 0;
}

}  // namespace llm
