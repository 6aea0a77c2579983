#!/usr/bin/env python3
"""Writes a long trace in llmsim's JSON format (traces/README.md) to standard output, for
measuring the JSON reader's memory and speed (docs/benchmarks.md, "The memory bound"):

    python3 bench/json_trace.py 1000000 20 > /tmp/1m.json   # 1M requests at 20 per second

Requests arrive evenly at RATE per second; prompt and output lengths are drawn from a fixed seed
(uniform 50-1,050 and 20-320 tokens), so the same arguments write the same bytes. Every
request is one line, as write_trace_json writes them."""
import random
import sys


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    rate = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    rng = random.Random(36)
    out = sys.stdout
    out.write('{\n  "metadata": {\n    "name": "json-trace-bench",\n'
              '    "time_unit": "ms"\n  },\n  "requests": [')
    gap_ms = 1000.0 / rate
    for i in range(count):
        out.write(',\n    ' if i else '\n    ')
        out.write('{"id": "%d", "arrival": %d, "prompt_len": %d, "output_len": %d}'
                  % (i, round(i * gap_ms), rng.randint(50, 1050), rng.randint(20, 320)))
    out.write('\n  ]\n}\n')


if __name__ == '__main__':
    main()
