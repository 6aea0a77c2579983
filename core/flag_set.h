// The one command-line layer of every program (llmserve, llmbench, the llmsim commands): a table
// of flags, each with a handler, that walks the arguments once. It accepts "--flag value" and
// "--flag=value", refuses a missing value ("--port: missing value"), a value on a switch
// ("--quiet: takes no value"), unknown flags ("unknown flag --x (see llmsim replay --help)", with
// "did you mean --y?" when a known flag is a likely typo away: core/nearest_name.h) and stray
// arguments, and stops reading flags at "--". An argument that starts with '-' and a
// non-digit is a flag; anything else ("-", "-5", "file.json") is a positional argument.
// Handlers throw UsageError naming the flag; a std::invalid_argument from a handler becomes a
// UsageError prefixed with the flag. Help and version are not flags here: programs call
// wants_help() and wants_version() first.
// Usage texts stay hand-written beside each program (they are documentation).
// Thread-safety: a FlagSet is built and used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/flag_values.h"

namespace llm {

// FlagSet::parse's error for an unknown flag: the flag and every name the set knew, so that a
// command handing part of its arguments to another command's parser can widen the suggestion
// (as_part_of below).
class UnknownFlagError : public UsageError {
 public:
  // "unknown flag FLAG[: did you mean NEAREST?] (see HELP_COMMAND --help)", NEAREST among `known`.
  UnknownFlagError(std::string flag, std::vector<std::string> known,
                   const std::string& help_command);
  const std::string& flag() const { return flag_; }
  const std::vector<std::string>& known() const { return known_; }

 private:
  std::string flag_;
  std::vector<std::string> known_;
};

class FlagSet {
 public:
  using ValueFn = std::function<void(const std::string& flag, const std::string& value)>;
  using SwitchFn = std::function<void(const std::string& flag)>;
  using PositionalFn = std::function<void(const std::string& argument)>;

  // `help_command` is what the unknown-flag message points at: "llmsim replay" gives
  // "unknown flag --x (see llmsim replay --help)".
  explicit FlagSet(std::string help_command);

  // A flag that takes one value. Several names are aliases.
  FlagSet& value(std::initializer_list<const char*> names, ValueFn fn);
  // A flag that takes none.
  FlagSet& toggle(std::initializer_list<const char*> names, SwitchFn fn);
  // A flag followed by one or more values: its inline value if any, then every following argument
  // for which `accepts` holds. None at all is "FLAG: expected one or more WHAT".
  FlagSet& list(const char* name, std::function<bool(const std::string&)> accepts, ValueFn fn,
                std::string what);
  // Where positional arguments go; without it each is "unexpected argument 'X'".
  FlagSet& positional(PositionalFn fn);

  // Typed flags over the handlers above.
  FlagSet& text(std::initializer_list<const char*> names, std::string& out);
  // A value that must not be empty: "FLAG: empty WHAT" (what: "path", "name", ...).
  FlagSet& nonempty(std::initializer_list<const char*> names, std::string& out,
                    const char* what = "path");
  // An integer in [min_value, max_value]; max_value defaults to the largest that Int (and int64_t)
  // holds.
  template <typename Int>
  FlagSet& integer(std::initializer_list<const char*> names, Int& out, int64_t min_value,
                   int64_t max_value = largest<Int>()) {
    return value(names, [&out, min_value, max_value](const std::string& f, const std::string& v) {
      out = static_cast<Int>(parse_int_flag(f, v, min_value, max_value));
    });
  }
  FlagSet& number(std::initializer_list<const char*> names, double& out, double min_value);
  FlagSet& choice(std::initializer_list<const char*> names, std::string& out,
                  std::vector<std::string> choices);
  // A switch that stores `when_given` (true for --enable-x, false for --no-x).
  FlagSet& boolean(std::initializer_list<const char*> names, bool& out, bool when_given = true);

  // Walks `args` in order, calling the handlers. Throws UsageError (UnknownFlagError for a flag
  // it does not know).
  void parse(const std::vector<std::string>& args) const;
  // Every flag name registered, aliases included, in alphabetical order.
  std::vector<std::string> names() const;

 private:
  enum class Kind { kValue, kSwitch, kList };
  struct Flag {
    Kind kind;
    ValueFn on_value;
    SwitchFn on_switch;
    std::function<bool(const std::string&)> accepts;  // kList
    std::string what;                                 // kList
  };
  FlagSet& add(std::initializer_list<const char*> names, Flag flag);
  template <typename Int>
  static constexpr int64_t largest() {
    constexpr auto max = std::numeric_limits<Int>::max();
    return static_cast<uint64_t>(max) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(max);
  }

  std::string help_command_;
  std::map<std::string, Flag> flags_;
  PositionalFn on_positional_;
};

// The flag an argument names: "--jobs=4" and "--jobs" are both "--jobs"; an argument without "="
// is returned whole.
std::string flag_name(const std::string& arg);

// True when an argument before "--" is --help or -h.
bool wants_help(const std::vector<std::string>& args);
// True when an argument before "--" is --version (core/build_info.h's version_line is the answer).
bool wants_version(const std::vector<std::string>& args);

// For a command that hands part of its arguments to another command's parser (llmsim alerts,
// sweep and capacity over llmsim replay's): `error`, thrown by that parser, as this command's own.
// Its "(see INNER_COMMAND --help)" points at OUTER_COMMAND's help, and an unknown flag is compared
// with `own_flags` too for "did you mean".
UsageError as_part_of(const UsageError& error, const std::string& inner_command,
                      const std::string& outer_command, const std::vector<std::string>& own_flags);

// Prints "PROGRAM: MESSAGE" on `err` and returns kUsageExitCode.
int report_usage_error(std::ostream& err, const std::string& program, const std::exception& e);

}  // namespace llm
