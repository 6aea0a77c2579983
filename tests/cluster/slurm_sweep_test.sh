#!/usr/bin/env bash
# ctest slurm_sweep: a sharded sweep through a real one-node Slurm cluster (docs/cluster.md).
# Starts munged, slurmctld and slurmd as root from a slurm.conf generated in a temporary folder
# (SLURM_CONF points at it; nothing under /etc is touched), emits the sweep with
# `llmsim sweep ... --shards 3 --emit slurm`, submits it with `sbatch --wait sweep.sbatch`, and
# compares every file it leaves (sweep.csv, sweep.json, report.html, each summary.json) byte for
# byte with the same sweep run unsharded. Then a job whose shard 1 fails exits non-zero, the merge
# naming the missing shard and writing nothing.
# Exits 77 (ctest SKIP_RETURN_CODE) when not root or Slurm and munge are not installed
# (ci/install-deps.sh installs slurm-wlm and munge). KEEP_LOGS=DIR keeps the daemons' logs.
# Usage: slurm_sweep_test.sh PATH/TO/llmsim SOURCE_DIR
set -uo pipefail
llmsim=$(realpath "$1")
src=$(realpath "$2")

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: slurm_sweep needs root (it starts slurmctld and slurmd)"
  exit 77
fi
for tool in munged slurmctld slurmd sbatch sinfo python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: slurm_sweep needs $tool (Debian's slurm-wlm and munge)"
    exit 77
  fi
done

source "$src/tests/cluster/slurm_cluster.sh"
slurm_cluster_folder slurm_sweep
fail() {
  echo "FAIL: $*"
  [[ -n ${KEEP_LOGS:-} ]] && cp -r "$tmp"/*.out "$tmp/work" "$KEEP_LOGS"/
  for log in "$tmp"/slurmctld.out "$tmp"/slurmd.out "$tmp"/work/*/out/slurm-*.out; do
    [[ -f $log ]] && { echo "--- $log"; tail -n 20 "$log"; }
  done
  exit 1
}

start_slurm_cluster 4

# The sweep, unsharded in work/local and emitted for Slurm in work/slurm: the same relative
# paths, so that even the report's command line is the same.
sweep=(trace.json --set max-num-seqs=8,32,128 --set kv-cache-dtype=auto,fp8 --jobs 1
       --out out --report out/report.html)
for d in local slurm broken; do
  mkdir -p "$tmp/work/$d"
  cp "$src/traces/azure-conv-sample.json" "$tmp/work/$d/trace.json"
done
(cd "$tmp/work/local" && "$llmsim" sweep "${sweep[@]}" >/dev/null) || fail "the local sweep failed"
(cd "$tmp/work/slurm" && "$llmsim" sweep "${sweep[@]}" --shards 3 --emit slurm >/dev/null) \
  || fail "--emit slurm failed"
start=$(date +%s.%N)
(cd "$tmp/work/slurm/out" && timeout 45 sbatch --wait sweep.sbatch >/dev/null) \
  || fail "sbatch --wait sweep.sbatch failed"
echo "slurm_sweep: 6 points in 3 shards through Slurm in" \
  "$(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"
for f in shard-0-of-3.json shard-1-of-3.json shard-2-of-3.json; do
  [[ -f $tmp/work/slurm/out/$f ]] || fail "no $f: the array did not run every shard"
done
diff -r -x 'shard-*' -x '*.sbatch' -x 'slurm-*.out' "$tmp/work/local/out" "$tmp/work/slurm/out" \
  || fail "the merged sweep differs from the unsharded run"
[[ $(find "$tmp/work/local/out" -type f | wc -l) -eq 9 ]] || fail "expected the sweep's 9 files"

# A shard that fails: task 1 of the array exits 3 before running (a $LLMSIM that fails there);
# the job fails and the merge names the missing shard, writing nothing.
(cd "$tmp/work/broken" && "$llmsim" sweep "${sweep[@]}" --shards 3 --emit slurm >/dev/null) \
  || fail "--emit slurm failed"
cat >"$tmp/flaky-llmsim" <<FLAKY
#!/bin/bash
[[ \${SLURM_ARRAY_TASK_ID:-} == 1 ]] && exit 3
exec "$llmsim" "\$@"
FLAKY
chmod +x "$tmp/flaky-llmsim"
if (cd "$tmp/work/broken/out" &&
    LLMSIM="$tmp/flaky-llmsim" timeout 45 sbatch --wait sweep.sbatch >/dev/null); then
  fail "the job with a failed shard succeeded"
fi
grep -q "shard 1/3 is missing" "$tmp"/work/broken/out/slurm-sweep-*.out \
  || fail "the merge did not name the missing shard"
[[ -f $tmp/work/broken/out/shard-0-of-3.json && -f $tmp/work/broken/out/shard-2-of-3.json ]] \
  || fail "the shards that ran left no record"
[[ ! -e $tmp/work/broken/out/sweep.csv && ! -e $tmp/work/broken/out/report.html ]] \
  || fail "a failed merge wrote its outputs"
[[ -n ${KEEP_LOGS:-} ]] && cp "$tmp"/*.out "$tmp"/*.log "$KEEP_LOGS"/
echo "slurm_sweep: ok"
