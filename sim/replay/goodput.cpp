#include "sim/replay/goodput.h"

#include <cstdio>

namespace llm {
namespace {

std::string seconds_text(double s) {
  char buf[48];
  if (s < 1.0) {
    std::snprintf(buf, sizeof buf, "%.4g ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g s", s);
  }
  return buf;
}

}  // namespace

bool meets_goodput(const GoodputTargets& t, double ttft_s, double tpot_s, double e2e_s) {
  return (!t.ttft_s || ttft_s <= *t.ttft_s) && (!t.tpot_s || tpot_s <= *t.tpot_s) &&
         (!t.e2e_s || e2e_s <= *t.e2e_s);
}

std::string describe_goodput(const GoodputTargets& t) {
  std::string text;
  const auto add = [&text](const char* name, const std::optional<double>& v) {
    if (!v) return;
    text += (text.empty() ? "" : ", ") + std::string(name) + " <= " + seconds_text(*v);
  };
  add("ttft", t.ttft_s);
  add("tpot", t.tpot_s);
  add("e2e", t.e2e_s);
  return text;
}

}  // namespace llm
