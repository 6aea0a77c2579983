#!/usr/bin/env bash
# ctest gpu_presets_reproduce: the fit behind every shipped GPU preset (backends/sim/gpus/*.json)
# is reproduced from ../shared/gpu-truth by the documented command
#   llmsim calibrate --runs ../shared/gpu-truth --out-dir DIR
# and every file it writes equals the shipped one: the same files, the same text fields, every
# number within a relative 1e-6 (the fit is deterministic; the margin is for compilers that
# round the last bits of the Nelder-Mead arithmetic differently). Skipped, saying so, where
# ../shared/gpu-truth is absent. Then the cross-validation's --hold-out: holding Qwen2.5-7B out
# changes the H100-SXM fit and says so in the provenance; a name matching no model is refused
# (exit 2) and writes nothing.
# Usage: tests/gpu_presets_reproduce_test.sh LLMSIM
set -euo pipefail
llmsim=${1:?usage: gpu_presets_reproduce_test.sh LLMSIM}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
truth="$root/../shared/gpu-truth"
if [[ ! -d $truth ]]; then
  echo "SKIP: $truth is absent; the GPU presets' fit was not reproduced"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$llmsim" calibrate --runs "$truth" --out-dir "$work" > "$work/fit.log"
python3 - "$root/backends/sim/gpus" "$work" <<'PY'
import json, math, pathlib, sys
shipped, fresh = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
names = sorted(p.name for p in shipped.glob("*.json"))
made = sorted(p.name for p in fresh.glob("*.json"))
if names != made:
    sys.exit(f"FAIL: the fit wrote {made}, the repository ships {names}")
def same(a, b, where):
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            d = same(a[k], b[k], f"{where}.{k}")
            if d: return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): return f"{where}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{where}[{i}]")
            if d: return d
        return None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a == b or math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9): return None
        return f"{where}: shipped {a}, reproduced {b}"
    return None if a == b else f"{where}: shipped {a!r}, reproduced {b!r}"
bad = 0
for n in names:
    d = same(json.loads((shipped / n).read_text()), json.loads((fresh / n).read_text()), n)
    print(("FAIL " if d else "ok   ") + (d or n))
    bad += bool(d)
if bad:
    sys.exit(f"FAIL: {bad} of {len(names)} presets differ from their fit; rerun the command "
             "of docs/cost-model.md and commit the files, or find what changed the fit")
print(f"gpu_presets_reproduce: {len(names)} presets reproduced")
PY

mkdir "$work/held" "$work/none"
"$llmsim" calibrate --runs "$truth" --out-dir "$work/held" --hold-out Qwen2.5-7B > "$work/held.log"
python3 - "$root/backends/sim/gpus/H100-SXM.json" "$work/held/H100-SXM.json" <<'PY'
import json, sys
shipped, held = (json.load(open(p)) for p in sys.argv[1:])
if "held out of the fit: Qwen2.5-7B" not in held["provenance"]["fit"]:
    sys.exit(f"FAIL: --hold-out not in the provenance: {held['provenance']['fit']!r}")
if held["step_time"] == shipped["step_time"]:
    sys.exit("FAIL: --hold-out Qwen2.5-7B left the H100-SXM fit unchanged")
print("ok   --hold-out Qwen2.5-7B refits H100-SXM and records it")
PY
set +e
"$llmsim" calibrate --runs "$truth" --out-dir "$work/none" --hold-out NoSuchModel-9B \
  > /dev/null 2> "$work/none.err"
rc=$?
set -e
if [[ $rc != 2 ]] || ! grep -q -- "--hold-out NoSuchModel-9B: no run" "$work/none.err" ||
  [[ -n "$(ls -A "$work/none")" ]]; then
  echo "FAIL: --hold-out of an unknown model: exit $rc, $(cat "$work/none.err"), wrote: $(ls "$work/none")"
  exit 1
fi
echo "ok   --hold-out of an unknown model is refused"
