#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a fixed short time: builds them in build-asan (configured
# by ci/sanitizers.sh --configure when not yet), replays fuzz/regressions/TARGET/* (inputs that
# once failed, each run once), then fuzzes from a temporary copy of fuzz/corpus/TARGET/ with
# fuzz/dict/TARGET.dict and a fixed seed. Fails on any finding (crash, sanitizer report, leak,
# timeout, undocumented exception), printing the target and the path of the saved input (kept
# under build-asan/fuzz-findings/TARGET/). See docs/fuzzing.md.
#   ci/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 12 s each, all targets)
# LLM_ASAN_BUILD_DIR names another build directory (default build-asan).
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
failed=()
summary=()
start=$SECONDS
for t in "${targets[@]}"; do
  bin="$build/fuzz/${t}_fuzz"
  mkdir -p "$work/$t/corpus" "$work/$t/out"
  cp fuzz/corpus/"$t"/* "$work/$t/corpus/"
  log="$work/$t/log"
  ok=1
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    "$bin" -runs=1 fuzz/regressions/"$t"/* >"$log.regressions" 2>&1 || {
      ok=0
      echo "ci/fuzz.sh: $t: a regression input fails again:" >&2
      tail -n 40 "$log.regressions" >&2
    }
  fi
  # shellcheck disable=SC2086
  "$bin" -seed=1 -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -dict=fuzz/dict/"$t".dict -artifact_prefix="$work/$t/out/" ${extra[$t]:-} \
    "$work/$t/corpus" >"$log" 2>&1 || ok=0
  if grep -q '^SKIP:' "$log"; then
    summary+=("$t: skipped ($(grep '^SKIP:' "$log" | head -n 1))")
    continue
  fi
  last=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -n 1 || true)
  if ((ok)); then
    summary+=("$t: ok: $last")
  else
    failed+=("$t")
    mkdir -p "$findings/$t"
    cp "$work/$t/out/"* "$findings/$t/" 2>/dev/null || true
    echo "ci/fuzz.sh: FINDING in $t:" >&2
    grep -E 'FINDING|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|Test unit written' \
      "$log" >&2 || tail -n 40 "$log" >&2
    for f in "$work/$t/out/"*; do
      [[ -e $f ]] && echo "ci/fuzz.sh: $t: crashing input saved as $findings/$t/$(basename "$f")" >&2
    done
    summary+=("$t: FAILED")
  fi
done
printf '%s\n' "${summary[@]}"
echo "ci/fuzz.sh: ${#targets[@]} targets, ${seconds} s each, $((SECONDS - start)) s in all"
if ((${#failed[@]})); then
  echo "ci/fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
