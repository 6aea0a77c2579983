#!/usr/bin/env bash
# Mutation testing: do the tests notice small, plausible bugs? Not run in CI (it rebuilds once per
# mutant); run it by hand after changing core/, backends/sim/ or sim/ or their tests.
#
# Usage: ci/mutate.sh [--quick | --programs P] [--only ID[,ID...]] [--list FILE] [--jobs N]
#                     [--timeout S] [--rev REV] [--keep] [--check]
#   --quick      build and run only core_tests and property_tests (default: every target, then
#                the full `ctest -j$(nproc)`)
#   --programs P build and run only these test programs (comma-separated, e.g.
#                sim_tests,backend_sim_tests); --quick is --programs core_tests,property_tests
#   --only IDS   run only these mutants (comma-separated ids, e.g. M01,M13)
#   --list FILE  the mutant list (default ci/mutants.txt)
#   --jobs N     parallel build and ctest jobs (default $(nproc))
#   --timeout S  seconds one test program (--quick) or one ctest test may run (default 600); a
#                mutant that makes the tests hang past it counts as killed
#   --rev REV    mutate the committed tree of REV (git archive) instead of the working tree
#   --keep       keep the temporary copy (its path is printed) instead of deleting it
#   --check      only check that every mutant's original snippet is still in the tree; no build
#                (ctest runs this as mutants_apply, so a change that moves a snippet updates the list)
#
# What it does:
#   1. Reads the mutant list (format in ci/mutants.txt: per mutant an id, a file, a one-line
#      description, an exact original snippet and its replacement) and checks every snippet
#      occurs exactly once in its file; if one does not, it stops with exit code 2 and names the
#      mutant, so the list cannot silently rot as the code changes.
#   2. Copies the tree into a temporary directory: the caller's working tree as it is (tracked
#      files plus untracked ones git does not ignore, so uncommitted tests count), or REV with
#      --rev. The caller's tree is never modified: other people work in it.
#   3. Builds the copy (cmake + ninja, RelWithDebInfo, no benchmarks) and runs the tests
#      unmutated; if they fail there, nothing can be judged and it stops (exit code 2).
#   4. For each mutant: applies it to the copy, rebuilds (incrementally), runs the tests, records
#      KILLED (some test failed or timed out, with the failing test names) or SURVIVED, and
#      restores the file. A mutant that does not compile is reported as NOBUILD (fix the list).
#   5. Prints the survivors and a summary line "killed K of N".
# Exit code: 0 every mutant killed, 1 some survived, 2 a usage, list, baseline or build error.
# Environment: RapidCheck properties draw fresh random cases on each run; set RC_PARAMS (e.g.
# "seed=1") to make their verdicts reproducible. GoogleTest programs honour GTEST_FILTER (e.g.
# "-Suite.*" leaves out a suite that fails on the unmutated tree for reasons of its own).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
list="$repo/ci/mutants.txt"
quick=0
programs=(core_tests property_tests)
only=""
jobs=$(nproc)
timeout_s=600
rev=""
keep=0
check_only=0

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --programs) quick=1; IFS=, read -r -a programs <<<"${2:?--programs needs a value}"; shift ;;
    --only) only=${2:?--only needs a value}; shift ;;
    --list) list=$(realpath "${2:?--list needs a value}"); shift ;;
    --jobs) jobs=${2:?--jobs needs a value}; shift ;;
    --timeout) timeout_s=${2:?--timeout needs a value}; shift ;;
    --rev) rev=${2:?--rev needs a value}; shift ;;
    --keep) keep=1 ;;
    --check) check_only=1 ;;
    -h | --help) usage 0 ;;
    *) echo "mutate.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

work=$(mktemp -d "${TMPDIR:-/tmp}/llm-mutate.XXXXXX")
cleanup() {
  if [[ $keep -eq 1 ]]; then
    echo "mutate.sh: the copy is kept in $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

# The list parser and the mutant applier. Errors name the list's line and the mutant.
helper="$work/mutants.py"
cat >"$helper" <<'PY'
import sys

def parse(path):
    mutants, cur, section = [], None, None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    def fail(n, msg):
        sys.exit(f"mutate.sh: {path}:{n}: {msg}")
    for n, line in enumerate(lines, 1):
        if cur is None:
            if line.startswith("@@ "):
                parts = line[3:].split()
                if len(parts) != 2:
                    fail(n, "expected '@@ ID PATH'")
                cur = {"id": parts[0], "path": parts[1], "line": n, "desc": None,
                       "orig": [], "repl": []}
                section = "desc"
            elif line.strip() and not line.startswith("#"):
                fail(n, f"text outside a mutant block: {line!r}")
            continue
        if section == "desc":
            if not line.strip() or line in ("<<<<", "====", ">>>>"):
                fail(n, f"mutant {cur['id']}: a one-line description must follow '@@'")
            cur["desc"] = line.strip()
            section = "want-orig"
        elif section == "want-orig":
            if line != "<<<<":
                fail(n, f"mutant {cur['id']}: expected '<<<<' before the original snippet")
            section = "orig"
        elif section == "orig":
            if line == "====":
                section = "repl"
            else:
                cur["orig"].append(line)
        elif section == "repl":
            if line == ">>>>":
                mutants.append(cur)
                cur, section = None, None
            else:
                cur["repl"].append(line)
    if cur is not None:
        sys.exit(f"mutate.sh: {path}:{cur['line']}: mutant {cur['id']} is not closed with '>>>>'")
    seen = set()
    for m in mutants:
        if m["id"] in seen:
            sys.exit(f"mutate.sh: {path}:{m['line']}: mutant id {m['id']} is used twice")
        seen.add(m["id"])
        if not m["orig"]:
            sys.exit(f"mutate.sh: {path}:{m['line']}: mutant {m['id']} has an empty original snippet")
        m["orig"] = "\n".join(m["orig"]) + "\n"
        m["repl"] = "\n".join(m["repl"]) + "\n" if m["repl"] else ""
        if m["orig"] == m["repl"]:
            sys.exit(f"mutate.sh: {path}:{m['line']}: mutant {m['id']} changes nothing")
    return mutants

def check(path, root, m):
    try:
        text = open(f"{root}/{m['path']}", encoding="utf-8").read()
    except OSError as e:
        sys.exit(f"mutate.sh: {path}:{m['line']}: mutant {m['id']}: cannot read {m['path']}: {e.strerror}")
    count = text.count(m["orig"])
    if count != 1:
        what = "not found" if count == 0 else f"found {count} times (it must be unique)"
        sys.exit(f"mutate.sh: {path}:{m['line']}: mutant {m['id']}: original snippet {what} in "
                 f"{m['path']}; update ci/mutants.txt to the current code:\n{m['orig']}")
    return text

cmd, path, root = sys.argv[1], sys.argv[2], sys.argv[3]
mutants = parse(path)
if cmd == "list":  # validates every mutant; prints "ID<TAB>PATH<TAB>DESCRIPTION"
    wanted = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and sys.argv[4] else None
    known = {m["id"] for m in mutants}
    if wanted and wanted - known:
        sys.exit(f"mutate.sh: {path}: no mutant named {', '.join(sorted(wanted - known))}")
    for m in mutants:
        check(path, root, m)
        if wanted is None or m["id"] in wanted:
            print(f"{m['id']}\t{m['path']}\t{m['desc']}")
elif cmd == "apply":  # applies mutant argv[4] to the tree at root
    m = next(m for m in mutants if m["id"] == sys.argv[4])
    text = check(path, root, m)
    with open(f"{root}/{m['path']}", "w", encoding="utf-8") as f:
        f.write(text.replace(m["orig"], m["repl"], 1))
PY

# 1. Check the list against the tree it will mutate.
src="$repo"
if [[ -n $rev ]]; then
  src="$work/tree"
  mkdir -p "$src"
  git -C "$repo" archive "$rev" | tar -x -C "$src"
fi
listing=$(python3 "$helper" list "$list" "$src" "$only") || exit 2
mapfile -t mutants <<<"$listing"
[[ ${#mutants[@]} -gt 0 ]] || { echo "mutate.sh: no mutants in $list" >&2; exit 2; }
if [[ $check_only -eq 1 ]]; then
  echo "mutate.sh: all ${#mutants[@]} mutants of $list apply to ${rev:-the working tree}"
  exit 0
fi

# 2. The copy.
tree="$work/tree"
if [[ -z $rev ]]; then
  mkdir -p "$tree"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do if [[ -e $f || -L $f ]]; then printf '%s\0' "$f"; fi; done |
    tar --null -T - -cf -) | tar -x -C "$tree"
fi
# The npm end-to-end tests need the (ignored) installed openai package; they only read it.
if [[ -d $repo/tests/e2e/node_modules && ! -e $tree/tests/e2e/node_modules ]]; then
  ln -s "$repo/tests/e2e/node_modules" "$tree/tests/e2e/node_modules"
fi

build="$tree/build"
targets=()
if [[ $quick -eq 1 ]]; then targets=(--target "${programs[@]}"); fi
log="$work/log.txt"

build_tree() {
  cmake --build "$build" "${targets[@]}" -j "$jobs" >"$log" 2>&1
}

# Runs the tests; prints the names of failing tests (none when all pass); returns 1 on failure.
run_tests() {
  local failed=0 out="$work/test-output.txt"
  if [[ $quick -eq 1 ]]; then
    for p in "${programs[@]}"; do
      local rc=0 names
      timeout "$timeout_s" "$build/$p" >"$out" 2>&1 || rc=$?
      [[ $rc -eq 0 ]] && continue
      failed=1
      names=$(grep -o '^\[  FAILED  \] [A-Za-z0-9_/]*\.[A-Za-z0-9_/]*' "$out" |
        sed 's/^\[  FAILED  \] //' | sort -u || true)
      if [[ -n $names ]]; then
        echo "$names"
      elif [[ $rc -eq 124 ]]; then
        echo "$p (timed out after ${timeout_s}s)"
      else
        echo "$p (exit code $rc)"
      fi
    done
  else
    ctest --test-dir "$build" -j "$jobs" --timeout "$timeout_s" >"$out" 2>&1 || failed=1
    sed -n '/The following tests FAILED/,$p' "$out" | grep -o ' - [^ ]* ([^)]*)' |
      sed 's/^ - //' || true
  fi
  return "$failed"
}

# 3. The unmutated baseline.
echo "mutate.sh: ${#mutants[@]} mutants; copy in $work; tests: $(
  [[ $quick -eq 1 ]] && echo "${programs[*]}" || echo "ctest -j $jobs")"
cmake -S "$tree" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLLM_BUILD_BENCHMARKS=OFF >"$log" 2>&1 || { cat "$log"; echo "mutate.sh: cmake failed" >&2; exit 2; }
echo "mutate.sh: building the unmutated copy"
build_tree || { tail -40 "$log"; echo "mutate.sh: the unmutated tree does not build" >&2; exit 2; }
if ! baseline_failures=$(run_tests); then
  echo "$baseline_failures"
  echo "mutate.sh: tests fail on the unmutated tree; no mutant can be judged" >&2
  exit 2
fi

# 4. One mutant at a time.
killed=0
survived=()
nobuild=()
total=${#mutants[@]}
i=0
for entry in "${mutants[@]}"; do
  IFS=$'\t' read -r id path desc <<<"$entry"
  i=$((i + 1))
  cp "$tree/$path" "$work/original"
  python3 "$helper" apply "$list" "$tree" "$id" || exit 2
  status=""
  detail=""
  if ! build_tree; then
    status=NOBUILD
    detail=$(grep -m1 'error' "$log" || true)
    nobuild+=("$id $path: $desc")
  elif failures=$(run_tests); then
    status=SURVIVED
    survived+=("$id $path: $desc")
  else
    status=KILLED
    killed=$((killed + 1))
    detail=$(echo "$failures" | head -3 | paste -sd, - | sed 's/,/, /g')
    n=$(echo "$failures" | grep -c . || true)
    [[ $n -gt 3 ]] && detail="$detail, +$((n - 3)) more"
  fi
  cp "$work/original" "$tree/$path"  # restore (a fresh mtime: the next build recompiles it)
  printf '[%2d/%d] %-8s %s %s: %s%s\n' "$i" "$total" "$status" "$id" "$path" "$desc" \
    "${detail:+ ($detail)}"
done

# 5. Summary.
if [[ ${#survived[@]} -gt 0 ]]; then
  echo "Survived (no test noticed the bug):"
  printf '  %s\n' "${survived[@]}"
fi
if [[ ${#nobuild[@]} -gt 0 ]]; then
  echo "Did not compile (fix these mutants in $list):"
  printf '  %s\n' "${nobuild[@]}"
fi
echo "killed $killed of $total$([[ ${#nobuild[@]} -gt 0 ]] && echo " (${#nobuild[@]} did not compile)")"
if [[ ${#nobuild[@]} -gt 0 ]]; then exit 2; fi
if [[ ${#survived[@]} -gt 0 ]]; then exit 1; fi
exit 0
