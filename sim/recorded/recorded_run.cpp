#include "sim/recorded/recorded_run.h"

#include <stdexcept>

namespace llm {
namespace {

struct RunFigureMember {
  const char* name;
  std::optional<double> RunFigures::*member;
};
constexpr RunFigureMember kRunFigureMembers[] = {
    {"ttft_mean", &RunFigures::ttft_mean}, {"ttft_p50", &RunFigures::ttft_p50},
    {"ttft_p90", &RunFigures::ttft_p90},   {"ttft_p99", &RunFigures::ttft_p99},
    {"e2e_mean", &RunFigures::e2e_mean},   {"e2e_p50", &RunFigures::e2e_p50},
    {"e2e_p90", &RunFigures::e2e_p90},     {"e2e_p99", &RunFigures::e2e_p99},
    {"tpot_mean", &RunFigures::tpot_mean}, {"tpot_p50", &RunFigures::tpot_p50},
    {"tpot_p90", &RunFigures::tpot_p90},   {"itl_mean", &RunFigures::itl_mean},
};

std::optional<double> RunFigures::*run_figure_member(const std::string& name) {
  for (const RunFigureMember& f : kRunFigureMembers) {
    if (name == f.name) return f.member;
  }
  throw std::invalid_argument("no run figure named '" + name + "'");
}

}  // namespace

const char* measured_view_name(MeasuredView view) {
  return view == MeasuredView::kClient ? "client" : "engine";
}

const std::vector<std::string>& run_figure_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const RunFigureMember& f : kRunFigureMembers) out.push_back(f.name);
    return out;
  }();
  return names;
}

std::optional<double> run_figure(const RunFigures& figures, const std::string& name) {
  return figures.*run_figure_member(name);
}

std::optional<double>& run_figure(RunFigures& figures, const std::string& name) {
  return figures.*run_figure_member(name);
}

}  // namespace llm
