#!/usr/bin/env python3
"""The HTML report of `llmsim replay --report` in a real browser (Debian's chromium, headless):
every plot's SVG exists with drawn data once the browser has laid it out (a check script added to
a copy of the report writes its verdict into the DOM, read back with --dump-dom), the screenshot
is not blank and shows the series colours, and a one-hour trace's report stays under 5 MiB and is
parsed and laid out in under 2 s.

Usage: report_browser_test.py PATH/TO/llmsim
Exit 77 (ctest's skip) only when no chromium is installed; CI installs it (ci/install-deps.sh).
"""
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_pixels import read_png  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOUR_TRACE = os.path.join(ROOT, "..", "shared", "traces", "AzureLLMInferenceTrace_conv.csv")
PLOTS = ["requests", "kv_cache", "preemptions", "throughput", "engine_load", "cdf_ttft",
         "cdf_tpot", "cdf_itl", "cdf_e2e"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking"]
MAX_BYTES = 5 * 1024 * 1024
MAX_LAYOUT_MS = 2000

# Added before </body> of a copy: for each plot, what the browser drew (points of its polylines,
# circles, the laid-out size of its series), and the time from navigation start to this point.
VERDICT_SCRIPT = """<script>
(function () {
  var plots = [];
  document.querySelectorAll('svg.plot').forEach(function (svg) {
    var points = 0, width = 0, height = 0;
    svg.querySelectorAll('g.series').forEach(function (g) {
      g.querySelectorAll('polyline').forEach(function (p) { points += p.points.numberOfItems; });
      points += g.querySelectorAll('circle, rect').length;
      var box = g.getBBox();
      width = Math.max(width, box.width);
      height = Math.max(height, box.height);
    });
    var r = svg.getBoundingClientRect();
    plots.push({id: svg.getAttribute('data-plot'), points: points, width: width,
                height: height, shown: r.width > 0 && r.height > 0});
  });
  var pre = document.createElement('pre');
  pre.id = 'verdict';
  pre.textContent = JSON.stringify({plots: plots, ms: performance.now(),
                                    title: document.title});
  document.body.appendChild(pre);
})();
</script>"""

failures = []


def check(condition, message):
    print(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(chromium, args, timeout=120):
    start = time.monotonic()
    done = subprocess.run([chromium, *CHROMIUM_FLAGS, *args], capture_output=True, text=True,
                          timeout=timeout)
    return done, time.monotonic() - start


def verdict_of(chromium, report, work, label):
    """Loads a copy of `report` with the check script; returns (verdict dict, wall seconds)."""
    text = open(report, encoding="utf-8").read()
    probe = os.path.join(work, label + "-probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", VERDICT_SCRIPT + "</body>", 1))
    done, wall = run_chromium(chromium, ["--dump-dom", "file://" + probe])
    start = done.stdout.find('<pre id="verdict">')
    if start < 0:
        raise RuntimeError(f"{label}: no verdict in the DOM (chromium exit {done.returncode}): "
                           + done.stderr[-2000:])
    end = done.stdout.find("</pre>", start)
    return json.loads(html.unescape(done.stdout[start + len('<pre id="verdict">'):end])), wall


def replay(llmsim, trace, report, *flags):
    subprocess.run([llmsim, "replay", trace, "--report", report, "--quiet", "--no-progress",
                    *flags], check=True)


def check_plots(verdict, label):
    by_id = {p["id"]: p for p in verdict["plots"]}
    check(sorted(by_id) == sorted(PLOTS), f"{label}: the plots are {sorted(PLOTS)}: "
          f"{sorted(by_id)}")
    for plot_id in PLOTS:
        p = by_id.get(plot_id)
        check(p is not None and p["shown"] and p["points"] >= 3 and p["width"] > 10
              and p["height"] >= 0, f"{label}: plot {plot_id} drawn with data: {p}")


def check_screenshot(png, label):
    pixels = read_png(png)[:, :, :3].astype(np.int32)
    height, width, _ = pixels.shape
    not_white = np.any(pixels < 245, axis=2).mean()
    colours = len(np.unique(pixels.reshape(-1, 3) // 8, axis=0))
    check(width > 300 and height > 300, f"{label}: screenshot {width}x{height}")
    check(0.02 < not_white < 0.9, f"{label}: screenshot not blank ({not_white:.1%} non-white)")
    check(colours > 20, f"{label}: screenshot has {colours} colours (> 20)")
    # The first two series colours of the plots (#1f77b4 blue, #d62728 red), antialiased at this
    # scale: pixels where that channel clearly dominates.
    r, g, b = pixels[:, :, 0], pixels[:, :, 1], pixels[:, :, 2]
    for name, near in (("blue", (b > r + 60) & (b > g + 10)), ("red", (r > g + 80) & (r > b + 80))):
        count = int(near.sum())
        check(count > 200, f"{label}: {count} pixels of the {name} series colour (> 200)")


def main():
    llmsim = sys.argv[1]
    chromium = find_chromium()
    if chromium is None:
        print("SKIP: no chromium installed (apt-get install chromium; CI installs it)")
        return 77
    work = tempfile.mkdtemp(prefix="report-browser-")
    try:
        # A two-engine replay under load: every plot has data, preemptions included.
        report = os.path.join(work, "sample.html")
        replay(llmsim, os.path.join(ROOT, "traces", "azure-conv-sample.json"), report,
               "--data-parallel-size", "2", "--arrival-rate-scale", "20",
               "--num-gpu-blocks-override", "1000", "--max-model-len", "8192",
               "--scrape-interval", "1s")
        verdict, wall = verdict_of(chromium, report, work, "sample")
        check(verdict["title"].startswith("llmsim replay"), f"sample: title {verdict['title']}")
        check_plots(verdict, "sample")
        png = os.path.join(work, "sample.png")
        done, _ = run_chromium(chromium, ["--screenshot=" + png, "--window-size=1600,2400",
                                          "--force-device-scale-factor=0.5",
                                          "--hide-scrollbars", "file://" + report])
        check(os.path.exists(png), f"sample: chromium wrote a screenshot ({done.returncode})")
        if os.path.exists(png):
            check_screenshot(png, "sample")

        # The sweep and capacity reports: each plot laid out with every point it was given.
        sample = os.path.join(ROOT, "traces", "azure-conv-sample.json")
        sweep = os.path.join(work, "sweep.html")
        subprocess.run([llmsim, "sweep", sample, "--set", "max-num-seqs=2,8,64", "--set",
                        "kv-cache-dtype=auto,fp8", "--report", sweep, "--quiet", "--no-progress"],
                       check=True)
        capacity = os.path.join(work, "capacity.html")
        subprocess.run([llmsim, "capacity", sample, "--slo", "ttft_p99=2s,tpot_p99=100ms",
                        "--arrival-rate-scale", "40", "--report", capacity], check=True,
                       stdout=subprocess.DEVNULL)
        for label, path, title, want in (
                ("sweep", sweep, "llmsim sweep",
                 {"sweep-max-num-seqs": 6, "sweep-kv-cache-dtype": 6}),
                ("capacity", capacity, "llmsim capacity", {"capacity-0": 3, "capacity-1": 3})):
            verdict, _ = verdict_of(chromium, path, work, label)
            check(verdict["title"].startswith(title), f"{label}: title {verdict['title']}")
            by_id = {p["id"]: p for p in verdict["plots"]}
            check(sorted(by_id) == sorted(want), f"{label}: plots {sorted(by_id)}")
            for plot_id, points in want.items():
                p = by_id.get(plot_id)
                check(p is not None and p["shown"] and p["points"] >= points and p["width"] > 10,
                      f"{label}: plot {plot_id} drawn with at least {points} points: {p}")

        if os.path.exists(HOUR_TRACE):
            hour = os.path.join(work, "hour.html")
            replay(llmsim, HOUR_TRACE, hour, "--data-parallel-size", "2")
            size = os.path.getsize(hour)
            check(size < MAX_BYTES, f"one-hour report: {size} bytes (< {MAX_BYTES})")
            verdict, wall = verdict_of(chromium, hour, work, "hour")
            check_plots(verdict, "one-hour report")
            check(verdict["ms"] < MAX_LAYOUT_MS,
                  f"one-hour report parsed and laid out in {verdict['ms']:.0f} ms "
                  f"(< {MAX_LAYOUT_MS}); chromium start to DOM dump {wall:.2f} s")
        else:
            print(f"SKIP one-hour checks: {HOUR_TRACE} is absent")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
