set -u
# The experiment of docs/fidelity.md "Re-measured after the CPU backend changed" (2026-12-02):
# B is a build, M the 124.7M model of tools/bench-vs-llamacpp.sh, run in an empty work folder.
B=${B:-/work/main/build}; M=${M:-/tmp/bench-vs-llamacpp/model/model.gguf}; mkdir -p "${WORK:-/tmp/fid10}" && cd "${WORK:-/tmp/fid10}"
engine="--max-num-seqs 16 --num-gpu-blocks-override 2048"
shape="prompt=lognormal:200:0.8:16:1500,output=lognormal:100:0.6:8:400"
date
$B/llmsim calibrate --backend cpu --model $M --cpu-threads 2 $engine --out cpu.json > cal.out 2>&1
date
$B/llmserve --backend cpu --model $M --cpu-threads 2 $engine --host 127.0.0.1 --port 18562 2>/dev/null &
pid=$!; sleep 4
$B/llmbench "synthetic:n=32,rate=1,$shape,seed=99" --base-url http://127.0.0.1:18562 --concurrency 16 --quiet --result-json cap.json >/dev/null 2>&1
kill $pid; wait $pid
cap=$(python3 -c "import json; print(json.load(open('cap.json'))['request_throughput'])")
echo "capacity $cap req/s"; date
rm -f s30.jsonl s90.jsonl
for load in 30 90; do
  n=$([[ $load == 30 ]] && echo 40 || echo 60)
  rate=$(python3 -c "print(round($cap * $load / 100, 4))")
  spec="synthetic:n=$n,rate=$rate,$shape,seed=$((load+1))"
  $B/llmserve --backend cpu --model $M --cpu-threads 2 $engine --host 127.0.0.1 --port 18562 --step-log s$load.jsonl 2>/dev/null &
  pid=$!; sleep 4
  $B/llmbench "$spec" --base-url http://127.0.0.1:18562 --quiet >/dev/null 2>&1
  kill $pid; wait $pid
done
cat s30.jsonl s90.jsonl > s30-90.jsonl
$B/llmsim calibrate --step-log s30-90.jsonl --facts cpu.json --out log.json 2>&1 | tail -2
$B/llmsim calibrate --step-log s30-90.jsonl --facts cpu.json --gap-limit-ms 0 --out log0.json 2>&1 | tail -1
date
$B/llmserve --backend cpu --model $M --cpu-threads 2 $engine --host 127.0.0.1 --port 18563 2>/dev/null &
pid=$!; sleep 4
rate=$(python3 -c "print(round($cap * 60 / 100, 4))")
spec="synthetic:n=60,rate=$rate,$shape,seed=61"
for prof in log cpu log0; do
  echo "== 60% $prof ($spec)"
  $B/llmsim fidelity "$spec" --url http://127.0.0.1:18563 --profile $prof.json $engine --real-runs 2 --result-json fid60-$prof.json 2>/dev/null
done
kill $pid; wait $pid
date
