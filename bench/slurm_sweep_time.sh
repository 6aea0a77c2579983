#!/usr/bin/env bash
# Times one llmsim sweep run locally with `--jobs 2` and the same sweep through a local one-node
# Slurm cluster (tests/cluster/slurm_cluster.sh, CPUS CPUs: the merge job and the shards), as a
# job array of SHARDS shards of `--jobs 1` (`--shards SHARDS --emit slurm`, `sbatch --wait`),
# prints both wall times and their ratio (issue 36's goal: at most 1.1x), and checks that the two
# sweep.csv files are the same. Needs root and Slurm (ci/install-deps.sh). Not run in CI.
# Usage: bench/slurm_sweep_time.sh LLMSIM TRACE SWEEP-FLAGS...
#   SHARDS=2 CPUS=3 bench/slurm_sweep_time.sh build/llmsim ../shared/traces/AzureLLMInferenceTrace_conv.csv \
#     --set max-num-seqs=16,32,64,128 --set max-num-batched-tokens=2048,8192 --quiet
set -uo pipefail
llmsim=$(realpath "$1")
trace=$(realpath "$2")
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
shards=${SHARDS:-2}
cpus=${CPUS:-3}

source "$src/tests/cluster/slurm_cluster.sh"
slurm_cluster_folder slurm_sweep_time
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
now() { date +%s.%N; }
seconds() { python3 -c "print(f'{$2 - $1:.1f}')"; }

start_slurm_cluster "$cpus"

mkdir -p "$tmp/local" "$tmp/slurm"
t0=$(now)
(cd "$tmp/local" && "$llmsim" sweep "$trace" "$@" --jobs 2 --out out >/dev/null) \
  || fail "the local sweep failed"
t1=$(now)
(cd "$tmp/slurm" && "$llmsim" sweep "$trace" "$@" --jobs 1 --out out --shards "$shards" \
  --emit slurm >/dev/null) || fail "--emit slurm failed"
t2=$(now)
(cd "$tmp/slurm/out" && sbatch --wait sweep.sbatch >/dev/null) || fail "sbatch --wait failed"
t3=$(now)
cmp -s "$tmp/local/out/sweep.csv" "$tmp/slurm/out/sweep.csv" \
  || fail "the Slurm sweep's sweep.csv differs from the local one"
points=$(($(wc -l <"$tmp/local/out/sweep.csv") - 1))
local_s=$(seconds "$t0" "$t1")
slurm_s=$(seconds "$t2" "$t3")
echo "sweep of $points points: local --jobs 2 ${local_s} s; Slurm, $shards shards on $cpus CPUs:" \
  "${slurm_s} s; ratio $(python3 -c "print(f'{$slurm_s / $local_s:.2f}')") (goal <= 1.1)"
