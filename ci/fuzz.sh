#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a fixed short time: builds them in build-asan (configured
# by ci/sanitizers.sh --configure when not yet), replays fuzz/regressions/TARGET/* (inputs that
# once failed, each run once), then fuzzes from a temporary copy of fuzz/corpus/TARGET/ with
# fuzz/dict/TARGET.dict and a fixed seed. Fails on any finding (crash, sanitizer report, leak,
# timeout, undocumented exception), printing the target and the path of the saved input (kept
# under build-asan/fuzz-findings/TARGET/). See docs/fuzzing.md.
#   ci/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 12 s each, all targets)
# LLM_ASAN_BUILD_DIR names another build directory (default build-asan); LLM_FUZZ_JOBS how many
# targets run at once (default: one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LLM_ASAN_BUILD_DIR:-build-asan}
export LLM_ASAN_BUILD_DIR=$build
seconds=${1:-12}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(http_request openai_request openai_response trace_reader model_format hf_tokenizer
           tokenizer chat_template profile)
fi

# Per-target libFuzzer flags beyond the common ones.
declare -A extra=(
  [tokenizer]="-max_len=512"
  [hf_tokenizer]="-max_len=2048"
  [chat_template]="-max_len=1024"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[[ -f $build/build.ninja ]] || bash ci/sanitizers.sh --configure
if ! cmake --build "$build" --target fuzzers -- -j "$(nproc)" >"$work/build.log" 2>&1; then
  tail -n 40 "$work/build.log" >&2
  echo "ci/fuzz.sh: the fuzz targets did not build" >&2
  exit 1
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
findings="$PWD/$build/fuzz-findings"
# One target: replays its regressions, fuzzes, and writes its summary line to $work/$t/summary
# and what to print on a finding to $work/$t/report.
fuzz_target() {
  local t=$1 bin="$build/fuzz/${1}_fuzz" log="$work/$1/log" ok=1 last f
  mkdir -p "$work/$t/corpus" "$work/$t/out"
  cp fuzz/corpus/"$t"/* "$work/$t/corpus/"
  : >"$work/$t/report"
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    "$bin" -runs=1 fuzz/regressions/"$t"/* >"$log.regressions" 2>&1 || {
      ok=0
      echo "ci/fuzz.sh: $t: a regression input fails again:" >>"$work/$t/report"
      tail -n 40 "$log.regressions" >>"$work/$t/report"
    }
  fi
  # shellcheck disable=SC2086
  "$bin" -seed=1 -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -dict=fuzz/dict/"$t".dict -artifact_prefix="$work/$t/out/" ${extra[$t]:-} \
    "$work/$t/corpus" >"$log" 2>&1 || ok=0
  if grep -q '^SKIP:' "$log"; then
    echo "$t: skipped ($(grep '^SKIP:' "$log" | head -n 1))" >"$work/$t/summary"
    return
  fi
  last=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true)
  if ((ok)); then
    echo "$t: ok: $last" >"$work/$t/summary"
  else
    echo "$t: FAILED" >"$work/$t/summary"
    mkdir -p "$findings/$t"
    cp "$work/$t/out/"* "$findings/$t/" 2>/dev/null || true
    {
      echo "ci/fuzz.sh: FINDING in $t:"
      grep -E 'FINDING|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|Test unit written' \
        "$log" || tail -n 40 "$log"
      for f in "$work/$t/out/"*; do
        [[ -e $f ]] && echo "ci/fuzz.sh: $t: crashing input saved as $findings/$t/$(basename "$f")"
      done
    } >>"$work/$t/report"
  fi
}

# libFuzzer runs one input at a time on one core: the targets run LLM_FUZZ_JOBS at a time (default
# one per core), each still for SECONDS of its own core, so that CI's second core is not idle for
# the two minutes (9 targets x 12 s one after the other took 121 s).
parallel=${LLM_FUZZ_JOBS:-$(nproc)}
failed=()
summary=()
start=$SECONDS
for t in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= parallel)); do
    wait -n || true
  done
  fuzz_target "$t" &
done
wait
for t in "${targets[@]}"; do
  cat "$work/$t/report" >&2 2>/dev/null || true
  if [[ ! -s $work/$t/summary ]]; then
    echo "$t: FAILED (its run stopped early)" >"$work/$t/summary"
  fi
  summary+=("$(cat "$work/$t/summary")")
  if [[ ${summary[-1]} == "$t: FAILED"* ]]; then
    failed+=("$t")
  fi
done
printf '%s\n' "${summary[@]}"
echo "ci/fuzz.sh: ${#targets[@]} targets, ${seconds} s each, $((SECONDS - start)) s in all"
if ((${#failed[@]})); then
  echo "ci/fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
