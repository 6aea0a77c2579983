#!/usr/bin/env python3
"""The HTML report of `llmsim replay --report` in a real browser (Debian's chromium, headless):
every plot's SVG exists with drawn data once the browser has laid it out (a check script added to
a copy of the report writes its verdict into the DOM, read back with --dump-dom), the screenshot
is not blank and shows the series colours, and a one-hour trace's report stays under 5 MiB and is
parsed and laid out in under 2 s. Every report (replay, sweep, capacity, alerts) laid out at 1400 px
wide: no text of a chart runs past its chart's edge (clipped), no two of a chart's labels overlap,
and no chart is empty; a screenshot of each at that width is kept when LLM_REPORT_SCREENSHOTS names
a folder (docs/report-example.png is the replay's).

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
  // Layout at the window's width: each chart's texts (tick labels, axis labels, legend, title)
  // against the chart's box (clipped: a text past the svg's edge, which the svg cuts off) and
  // against each other (two labels whose boxes overlap by more than 2x2 px).
  var layout = [];
  document.querySelectorAll('svg.plot').forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var texts = [];
    svg.querySelectorAll('text').forEach(function (t) {
      var r = t.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && t.textContent.trim() !== '') {
        texts.push({text: t.textContent, r: r});
      }
    });
    var clipped = [], overlaps = [];
    texts.forEach(function (t) {
      if (t.r.left < box.left - 0.5 || t.r.right > box.right + 0.5 ||
          t.r.top < box.top - 0.5 || t.r.bottom > box.bottom + 0.5) {
        clipped.push(t.text);
      }
    });
    for (var i = 0; i < texts.length; ++i) {
      for (var j = i + 1; j < texts.length; ++j) {
        var a = texts[i].r, b = texts[j].r;
        var w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        var h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 2 && h > 2) overlaps.push([texts[i].text, texts[j].text]);
      }
    }
    layout.push({id: svg.getAttribute('data-plot'), width: box.width, texts: texts.length,
                 clipped: clipped, overlaps: overlaps});
  });
  var pre = document.createElement('pre');
  pre.id = 'verdict';
  pre.textContent = JSON.stringify({plots: plots, layout: layout, ms: performance.now(),
                                    title: document.title,
                                    page_width: document.documentElement.scrollWidth});
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


def verdict_of(chromium, report, work, label, width=None):
    """Loads a copy of `report` with the check script (in a window `width` px wide when given);
    returns (verdict dict, wall seconds)."""
    text = open(report, encoding="utf-8").read()
    probe = os.path.join(work, label + "-probe.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", VERDICT_SCRIPT + "</body>", 1))
    size = [f"--window-size={width},1200"] if width else []
    done, wall = run_chromium(chromium, [*size, "--dump-dom", "file://" + probe])
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


LAYOUT_WIDTH = 1400


def check_layout(chromium, report, work, label):
    """The report at LAYOUT_WIDTH px: every chart shown and non-empty, none wider than the page,
    no text clipped at a chart's edge, no two labels of a chart overlapping; a screenshot at that
    width into LLM_REPORT_SCREENSHOTS when set."""
    verdict, _ = verdict_of(chromium, report, work, label + "-layout", LAYOUT_WIDTH)
    check(verdict["page_width"] <= LAYOUT_WIDTH,
          f"{label} at {LAYOUT_WIDTH} px: the page is {verdict['page_width']} px wide")
    check(len(verdict["layout"]) > 0, f"{label} at {LAYOUT_WIDTH} px: has charts")
    for plot in verdict["plots"]:
        check(plot["shown"] and plot["points"] > 0,
              f"{label} at {LAYOUT_WIDTH} px: chart {plot['id']} is not empty: {plot}")
    for chart in verdict["layout"]:
        check(chart["texts"] >= 3 and not chart["clipped"],
              f"{label} at {LAYOUT_WIDTH} px: chart {chart['id']}: no text clipped "
              f"({chart['texts']} texts; clipped: {chart['clipped'][:5]})")
        check(not chart["overlaps"],
              f"{label} at {LAYOUT_WIDTH} px: chart {chart['id']}: no labels overlap "
              f"({chart['overlaps'][:5]})")
    folder = os.environ.get("LLM_REPORT_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        png = os.path.join(folder, label + ".png")
        run_chromium(chromium, ["--screenshot=" + png, f"--window-size={LAYOUT_WIDTH},2600",
                                "--hide-scrollbars", "file://" + report])
        print(f"     screenshot {png}")


# A page the layout check must fail: one label past its chart's right edge, two drawn on top of
# each other (the check itself is checked, so that a report passing it means something).
BAD_LAYOUT_PAGE = """<!DOCTYPE html><html><head><title>bad</title></head><body>
<svg class="plot" data-plot="bad" width="300" height="100" xmlns="http://www.w3.org/2000/svg">
<g class="series"><polyline points="10,10 50,50 90,20"/></g>
<text x="20" y="80" font-size="12">overlapping label one</text>
<text x="24" y="82" font-size="12">overlapping label two</text>
<text x="270" y="40" font-size="12">cut off at the edge</text>
</svg></body></html>"""


def check_the_layout_check(chromium, work):
    bad = os.path.join(work, "bad-layout.html")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(BAD_LAYOUT_PAGE)
    verdict, _ = verdict_of(chromium, bad, work, "bad-layout", LAYOUT_WIDTH)
    chart = verdict["layout"][0]
    check(chart["clipped"] == ["cut off at the edge"],
          f"the layout check finds a clipped label: {chart['clipped']}")
    check([sorted(pair) for pair in chart["overlaps"]] ==
          [["overlapping label one", "overlapping label two"]],
          f"the layout check finds overlapping labels: {chart['overlaps']}")


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
        check_the_layout_check(chromium, work)
        # A two-engine replay under load: every plot has data, preemptions included.
        report = os.path.join(work, "sample.html")
        replay(llmsim, os.path.join(ROOT, "traces", "azure-conv-sample.json"), report,
               "--data-parallel-size", "2", "--arrival-rate-scale", "20",
               "--num-gpu-blocks-override", "1000", "--max-model-len", "8192",
               "--scrape-interval", "1s")
        verdict, wall = verdict_of(chromium, report, work, "sample")
        check(verdict["title"].startswith("llmsim replay"), f"sample: title {verdict['title']}")
        check_plots(verdict, "sample")
        check_layout(chromium, report, work, "replay")
        png = os.path.join(work, "sample.png")
        done, _ = run_chromium(chromium, ["--screenshot=" + png, "--window-size=1600,2400",
                                          "--force-device-scale-factor=0.5",
                                          "--hide-scrollbars", "file://" + report])
        check(os.path.exists(png), f"sample: chromium wrote a screenshot ({done.returncode})")
        if os.path.exists(png):
            check_screenshot(png, "sample")

        # The sweep and capacity reports: each plot laid out with every point it was given (the
        # sweep's per-point SLO table too, within the window).
        sample = os.path.join(ROOT, "traces", "azure-conv-sample.json")
        sweep = os.path.join(work, "sweep.html")
        subprocess.run([llmsim, "sweep", sample, "--set", "max-num-seqs=2,8,64", "--set",
                        "kv-cache-dtype=auto,fp8", "--slo",
                        "ttft_p99=2s,tpot_p99=100ms,ttft=2s,attainment=0.9", "--report", sweep,
                        "--quiet", "--no-progress"],
                       check=True)
        check("SLO per point" in open(sweep).read(), "sweep: the per-point SLO table")
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
            check_layout(chromium, path, work, label)
            by_id = {p["id"]: p for p in verdict["plots"]}
            check(sorted(by_id) == sorted(want), f"{label}: plots {sorted(by_id)}")
            for plot_id, points in want.items():
                p = by_id.get(plot_id)
                check(p is not None and p["shown"] and p["points"] >= points and p["width"] > 10,
                      f"{label}: plot {plot_id} drawn with at least {points} points: {p}")

        # The alerts report: the replay's sections after each alert's firing windows (an
        # overloaded deployment, so that alerts fire and their names are drawn on the timeline).
        alerts = os.path.join(work, "alerts.html")
        subprocess.run([llmsim, "alerts", sample, "--quiet", "--rules",
                        os.path.join(ROOT, "monitoring", "prometheus-rules.yml"),
                        "--evaluation-interval", "15s", "--gpu", "L40S", "--model",
                        "Llama-3.1-70B", "--tensor-parallel-size", "4", "--no-async-scheduling",
                        "--arrival-rate-scale", "4", "--num-gpu-blocks-override", "620",
                        "--max-model-len", "8192", "--report", alerts], check=True,
                       stdout=subprocess.DEVNULL)
        verdict, _ = verdict_of(chromium, alerts, work, "alerts")
        check(verdict["title"].startswith("llmsim alerts"), f"alerts: title {verdict['title']}")
        check_layout(chromium, alerts, work, "alerts")

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
