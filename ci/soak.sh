#!/usr/bin/env bash
# Soak test of llmserve (not in CI at full length; ctest runs a 60-second version, soak_short):
# llmserve on the sim backend (--step-time-scale 10, --max-num-seqs 16, --max-waiting-requests 32)
# is first driven by a saturating closed loop to measure its capacity (requests/s completed with
# the load generator's mix), then loaded at 10x that capacity for DURATION_S seconds by the bounded
# open-loop generator of tests/server/load_gen.py (loopback, at most 256 requests in flight,
# completions and chats, streaming and not, 10% of the streams dropped mid-stream by the client).
# Criteria (each printed ok/FAIL; exit 1 when one fails):
#   - llmserve stays up, and exits 0 on SIGTERM at the end;
#   - every answer is a whole 200 (JSON with finish reasons, or SSE ending in [DONE]) or a 503 with
#     Retry-After and the error envelope; 503s happen; their count equals
#     vllm:admission_rejections_total; every accepted request is counted once in
#     vllm:request_success_total;
#   - at every once-a-second scrape, waiting <= --max-waiting-requests and
#     running <= --max-num-seqs, and /health answers 200;
#   - afterwards everything drains: num_requests_running 0, num_requests_waiting 0,
#     kv_cache_usage_perc 0;
#   - RSS (VmRSS from /proc/PID/status, sampled every second) is flat after warm-up: the largest
#     sample of the last half is at most 10% above the largest of the first quarter.
# A JSON summary of the figures (capacity, rates, counts, RSS, queue maxima) comes first.
# Usage: [DURATION_S=600] ci/soak.sh [PATH/TO/llmserve]   (default: build/llmserve)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
llmserve=${1:-$root/build/llmserve}
exec python3 "$root/tests/server/load_gen.py" soak --llmserve "$llmserve" \
  --duration-s "${DURATION_S:-600}"
