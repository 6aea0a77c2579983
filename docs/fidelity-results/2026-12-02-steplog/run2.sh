set -u
# Fitted on one load (60%), checked at the two others (30%, 90%): a step log of the chat trace at
# 60% (seed 60), fitted with calibrate --step-log; llmsim fidelity at 30% and 90% with that
# profile and with the in-process one (cpu.json from run.sh).
B=${B:-/work/main/build}; M=${M:-/tmp/bench-vs-llamacpp/model/model.gguf}
mkdir -p "${WORK:-/tmp/fid10}" && cd "${WORK:-/tmp/fid10}"
engine="--max-num-seqs 16 --num-gpu-blocks-override 2048"
shape="prompt=lognormal:200:0.8:16:1500,output=lognormal:100:0.6:8:400"
cap=$(python3 -c "import json; print(json.load(open('cap.json'))['request_throughput'])")
date
rate=$(python3 -c "print(round($cap * 60 / 100, 4))")
$B/llmserve --backend cpu --model $M --cpu-threads 2 $engine --host 127.0.0.1 --port 18564 --step-log s60.jsonl 2>/dev/null &
pid=$!; sleep 4
$B/llmbench "synthetic:n=60,rate=$rate,$shape,seed=60" --base-url http://127.0.0.1:18564 --quiet >/dev/null 2>&1
kill $pid; wait $pid
$B/llmsim calibrate --step-log s60.jsonl --facts cpu.json --out log60.json 2>&1 | tail -1
$B/llmserve --backend cpu --model $M --cpu-threads 2 $engine --host 127.0.0.1 --port 18565 2>/dev/null &
pid=$!; sleep 4
for load in 30 90; do
  n=$([[ $load == 30 ]] && echo 40 || echo 60)
  rate=$(python3 -c "print(round($cap * $load / 100, 4))")
  spec="synthetic:n=$n,rate=$rate,$shape,seed=$load"
  for prof in log60 cpu; do
    echo "== $load% $prof ($spec)"
    $B/llmsim fidelity "$spec" --url http://127.0.0.1:18565 --profile $prof.json $engine --real-runs 2 --result-json fid$load-$prof.json 2>/dev/null
  done
done
kill $pid; wait $pid
date
