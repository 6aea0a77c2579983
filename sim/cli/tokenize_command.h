// `llmsim tokenize --tokenizer FILE [--add-special-tokens] [--parse-special] TEXT`: prints the ids
// separated by spaces (no special tokens unless --add-special-tokens).
// Exit codes: 0 ok, 2 bad usage or unusable tokenizer file (message on `err`).
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace llm {

// `args` excludes the "tokenize" word itself.
int run_tokenize_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err);

}  // namespace llm
