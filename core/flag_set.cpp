#include "core/flag_set.h"

#include <algorithm>
#include <cctype>
#include <ostream>
#include <stdexcept>
#include <utility>

#include "core/nearest_name.h"

namespace llm {
namespace {

bool looks_like_flag(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1])) &&
         arg[1] != '.';
}

// Runs a handler; a plain invalid_argument from it (a library's parse error) gets the flag.
template <typename Fn>
void for_flag(const std::string& flag, Fn&& fn) {
  try {
    fn();
  } catch (const UsageError&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw UsageError(flag + ": " + e.what());
  }
}

}  // namespace

namespace {

std::string unknown_flag_message(const std::string& flag, const std::vector<std::string>& known,
                                 const std::string& help_command) {
  std::vector<std::string> candidates = {"--help", "--version"};
  candidates.insert(candidates.end(), known.begin(), known.end());
  const std::string nearest = nearest_name(flag, candidates);
  return "unknown flag " + flag + (nearest.empty() ? "" : ": did you mean " + nearest + "?") +
         " (see " + help_command + " --help)";
}

}  // namespace

UnknownFlagError::UnknownFlagError(std::string flag, std::vector<std::string> known,
                                   const std::string& help_command)
    : UsageError(unknown_flag_message(flag, known, help_command)),
      flag_(std::move(flag)),
      known_(std::move(known)) {}

FlagSet::FlagSet(std::string help_command) : help_command_(std::move(help_command)) {}

FlagSet& FlagSet::add(std::initializer_list<const char*> names, Flag flag) {
  for (const char* name : names) {
    if (!flags_.emplace(name, flag).second) {
      throw std::logic_error(std::string("FlagSet: flag ") + name + " registered twice");
    }
  }
  return *this;
}

FlagSet& FlagSet::value(std::initializer_list<const char*> names, ValueFn fn) {
  return add(names, Flag{Kind::kValue, std::move(fn), {}, {}, {}});
}

FlagSet& FlagSet::toggle(std::initializer_list<const char*> names, SwitchFn fn) {
  return add(names, Flag{Kind::kSwitch, {}, std::move(fn), {}, {}});
}

FlagSet& FlagSet::list(const char* name, std::function<bool(const std::string&)> accepts,
                       ValueFn fn, std::string what) {
  return add({name}, Flag{Kind::kList, std::move(fn), {}, std::move(accepts), std::move(what)});
}

FlagSet& FlagSet::positional(PositionalFn fn) {
  on_positional_ = std::move(fn);
  return *this;
}

FlagSet& FlagSet::text(std::initializer_list<const char*> names, std::string& out) {
  return value(names, [&out](const std::string&, const std::string& v) { out = v; });
}

FlagSet& FlagSet::nonempty(std::initializer_list<const char*> names, std::string& out,
                           const char* what) {
  return value(names, [&out, what](const std::string& f, const std::string& v) {
    if (v.empty()) throw UsageError(f + ": empty " + what);
    out = v;
  });
}

FlagSet& FlagSet::number(std::initializer_list<const char*> names, double& out, double min_value) {
  return value(names, [&out, min_value](const std::string& f, const std::string& v) {
    out = parse_double_flag(f, v, min_value);
  });
}

FlagSet& FlagSet::choice(std::initializer_list<const char*> names, std::string& out,
                         std::vector<std::string> choices) {
  return value(names, [&out, choices](const std::string& f, const std::string& v) {
    out = parse_choice_flag(f, v, choices);
  });
}

FlagSet& FlagSet::boolean(std::initializer_list<const char*> names, bool& out, bool when_given) {
  return toggle(names, [&out, when_given](const std::string&) { out = when_given; });
}

void FlagSet::parse(const std::vector<std::string>& args) const {
  bool flags_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_ended || !looks_like_flag(arg)) {
      if (!on_positional_) throw UsageError("unexpected argument '" + arg + "'");
      on_positional_(arg);
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      continue;
    }
    const size_t eq = arg.rfind("--", 0) == 0 ? arg.find('=') : std::string::npos;
    const std::string name = arg.substr(0, eq);
    const bool has_inline = eq != std::string::npos;
    const auto it = flags_.find(name);
    if (it == flags_.end()) throw UnknownFlagError(name, names(), help_command_);
    const Flag& flag = it->second;
    switch (flag.kind) {
      case Kind::kSwitch:
        if (has_inline) throw UsageError(name + ": takes no value");
        for_flag(name, [&] { flag.on_switch(name); });
        break;
      case Kind::kValue: {
        if (!has_inline && i + 1 >= args.size()) throw UsageError(name + ": missing value");
        const std::string value = has_inline ? arg.substr(eq + 1) : args[++i];
        for_flag(name, [&] { flag.on_value(name, value); });
        break;
      }
      case Kind::kList: {
        bool any = false;
        if (has_inline) {
          for_flag(name, [&] { flag.on_value(name, arg.substr(eq + 1)); });
          any = true;
        }
        while (i + 1 < args.size() && flag.accepts(args[i + 1])) {
          const std::string& value = args[++i];
          for_flag(name, [&] { flag.on_value(name, value); });
          any = true;
        }
        if (!any) throw UsageError(name + ": expected one or more " + flag.what);
        break;
      }
    }
  }
}

std::vector<std::string> FlagSet::names() const {
  std::vector<std::string> out;
  for (const auto& [name, flag] : flags_) out.push_back(name);
  return out;
}

UsageError as_part_of(const UsageError& error, const std::string& inner_command,
                      const std::string& outer_command, const std::vector<std::string>& own_flags) {
  if (const auto* unknown = dynamic_cast<const UnknownFlagError*>(&error)) {
    std::vector<std::string> known = own_flags;
    known.insert(known.end(), unknown->known().begin(), unknown->known().end());
    std::sort(known.begin(), known.end());
    return UnknownFlagError(unknown->flag(), known, outer_command);
  }
  std::string message = error.what();
  const std::string inner_help = "(see " + inner_command + " --help)";
  if (const size_t at = message.find(inner_help); at != std::string::npos) {
    message.replace(at, inner_help.size(), "(see " + outer_command + " --help)");
  }
  return UsageError(message);
}

std::string flag_name(const std::string& arg) { return arg.substr(0, arg.find('=')); }

bool wants_help(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

bool wants_version(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") return false;
    if (a == "--version") return true;
  }
  return false;
}

int report_usage_error(std::ostream& err, const std::string& program, const std::exception& e) {
  err << program << ": " << e.what() << "\n";
  return kUsageExitCode;
}

}  // namespace llm
