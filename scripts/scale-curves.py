#!/usr/bin/env python3
"""Kiln at 10M chunks on paper: the scale benchmark's cost curves, 100k-3M, extrapolated with an error.

    python3 scripts/scale-curves.py [--write PAGE] [RESULTS_DIR]   (default bench/results/scale; stdlib, < 1 s)

With --write, the tables also replace what lies between the page's BEGIN and END markers (below), so
docs/results/scale-10m.md is regenerated from the raw files: --write docs/results/scale-10m.md.

Reads the raw scale-benchmark results (the runs named in POINTS), fits each measure with the model form
stated in MEASURES, and prints the tables of docs/results/scale-10m.md:

1. the 10M prediction: each model fitted on every point 100k-3M, with a band (ERROR below);
2. the 3M back-test: each model fitted on 100k-1M only, its 3M prediction against the measured 3M;
3. what twenty 500k shards change at 10M (measured ratios, not fits), and the disk a 10M build needs;
4. the points used, with the 1-minute load average each run recorded (> 2.5 = loaded).

ERROR. The back-test's error at 3M is an extrapolation by ln(3M/1M) past the last point fitted; the
10M prediction extrapolates ln(10M/3M) past its own. A wrong slope (the usual failure of a fit on a few
points) grows an error linearly in the log of the distance, so the back-test's log-error is scaled by
ln(10M/3M) / ln(3M/1M) = 1.10 and combined in quadrature with the 1M runs' own spread (half the log of
max/min over the 1M runs of 2026-12-05/06: machine drift and code changes between runs). One back-test
point per measure is one sample of the error, not a distribution: the band is a scale, not a
confidence interval.

Conventions follow scripts/capacity-model.py (its least-squares `fit` is reused); its per-500k-shard
latency constants give the twenty-shard rows.
"""
import contextlib
import importlib.util
import io
import json
import math
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("capacity_model", os.path.join(HERE, "capacity-model.py"))
cap = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cap)

TARGET = 10_000_000
BACKTEST = 3_000_000
LOADED = 2.5  # 1-minute load average above which a figure is "loaded" (2 cores)
# Disk at 3M, from scale-log.md's run (p) section (not in its JSON).
MERGE_PEAK_3M_GB = 18.0     # the snapshot while the shards' final merges ran
SPILL_3M_GB = 8.3           # Flink shuffle spill at its peak
EXACT_VECTORS_3M_GB = 4.3   # the benchmark's exact-search vector file
INT8_EXTRA_B = 400          # .veq, d + 16 a chunk (docs/results/quantization.md, 1M table)
DISTANCE = math.log(TARGET / BACKTEST) / math.log(BACKTEST / 1_000_000)

# --- The runs (bench/results/scale/). The chain 100k (q), 1M (o), 3M (p) is the one the log's cost
# curves and capacity-model.py use (scale-log.md, "3M chunks, run (p)"): two shards at every size,
# so a shard grows with N. 200k is the local full build of the remote bench (no search step). The 1M
# rebuild comes from (r), the first 1M run whose rebuild fingerprints rows from their bytes as (q)'s
# and (p)'s rebuilds do; (o)'s rebuild predates that change (scale-log.md, 2d4d52a).
POINTS = {
    "q": ("n100000-2026-12-06q.json", None),
    "200k": ("remote-n200000-2026-12-06.json", "local_full"),
    "o": ("n1000000-2026-12-05o.json", None),
    "r": ("n1000000-2026-12-06r.json", None),
    "p": ("n3000000-2026-12-06p.json", None),
    "s": ("n3000000-shards6-2026-12-06s.json", None),
}
# 1M runs with two 500k shards on the current snapshot format (3.2 GB), 2026-12-05 noon to 12-06 17:00:
# their spread is the noise floor. (r-raw) searched the wrong snapshot (scale-log.md, run (r)) and is
# left out; runs that reused another run's build count its build once.
REPLICATES_1M = ["k", "l", "m", "n", "o", "r", "r-search", "t", "u", "v", "w", "x", "y", "z", "aa", "ab",
                 "ab-search"]
BUILD_OWNERS_1M = ["k", "l", "m", "n", "o", "r", "t", "v", "ab"]


def dig(doc, path):
    for key in path.split("."):
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def load1(doc, key):
    text = doc.get(key)
    return float(text.split()[0]) if text else None


class Run:
    def __init__(self, directory, name, file, section):
        with open(os.path.join(directory, file)) as f:
            self.doc = json.load(f)
        self.name, self.file = name, file
        self.build = self.doc[section] if section else self.doc.get("kiln_build", {})
        self.n = self.doc["chunks"]
        self.load = (load1(self.doc, "load_average_start"), load1(self.doc, "load_average_end"))

    def loaded(self):
        return any(x is not None and x > LOADED for x in self.load)


# --- Measures: (key, label, unit, model form, getter(run) -> value or None, runs for the back-test fit,
# runs for the 10M fit). Forms: "nlogn" y = c + a·N·ln N; "linear" y = c + b·N; "power" y = c·N^e (least
# squares on the logs); "logn" y = c + a·ln N; "flat" y = mean; "miss" 1 − y = c·(N / shards)^e (recall:
# the miss rate as a power of the segment size).
def g(path, scale=1.0):
    def get(run):
        v = dig(run.doc, path)
        return None if v is None else v * scale
    return get


def build_get(key, scale=1.0):
    def get(run):
        v = run.build.get(key)
        return None if v is None else v * scale
    return get


def rebuild_wall(run):
    return run.doc.get("rebuild_median_s") or dig(run.doc, "rebuild.wall_s")


STEADY = "search.latency_steady."
MEASURES = [
    ("build", "full build wall, 2 cores, 2 shards", "s", "nlogn", build_get("wall_s"),
     ["q", "200k", "o"], ["q", "200k", "o", "p"]),
    ("bytes", "snapshot bytes", "GB", "linear", build_get("snapshot_bytes", 1e-9),
     ["q", "200k", "o"], ["q", "200k", "o", "p"]),
    # Linear, not flat: presumably each writer holds the graph it is building on its heap, which grows with the shard.
    ("heap", "build heap live after GC (2 shards, 1 writer a subtask)", "GB", "linear",
     build_get("peak_live_heap_after_gc_mb", 1e-3), ["q", "200k", "o"], ["q", "200k", "o"]),
    ("rss", "searcher RSS (VmHWM: heap + touched mapped pages)", "GB", "linear", g("search.peak_rss_mb", 1e-3),
     ["q", "o"], ["q", "o", "p"]),
    ("hyb50", "hybrid p50, vector given, steady", "ms", "power", g(STEADY + "hybrid_vector_given.p50_ms"),
     ["q", "o"], ["q", "o", "p"]),
    ("hyb99", "hybrid p99, vector given, steady", "ms", "power", g(STEADY + "hybrid_vector_given.p99_ms"),
     ["q", "o"], ["q", "o", "p"]),
    ("dense50", "dense p50, vector given, steady", "ms", "logn", g(STEADY + "dense.p50_ms"), ["q", "o"],
     ["q", "o", "p"]),
    ("dense99", "dense p99, vector given, steady", "ms", "logn", g(STEADY + "dense.p99_ms"), ["q", "o"],
     ["q", "o", "p"]),
    ("bm2550", "bm25 p50, steady", "ms", "power", g(STEADY + "bm25.p50_ms"), ["q", "o"], ["q", "o", "p"]),
    ("bm2599", "bm25 p99, steady", "ms", "power", g(STEADY + "bm25.p99_ms"), ["q", "o"], ["q", "o", "p"]),
    ("recall", "dense recall@10, default depth, 2 shards", "", "miss", g("search.dense_recall_at_10"),
     ["q", "o"], ["q", "o", "p"]),
    ("rebuild", "1 % rebuild wall (median of 3; 3M: one)", "s", "linear", rebuild_wall, ["q", "r"],
     ["q", "r", "p"]),
    ("open", "open, second in the JVM", "s", "flat", g("search.open_s"), ["q", "o"], ["q", "o", "p"]),
    ("cold", "open, first in a fresh JVM (page cache warm)", "s", "logn", g("search.open_cold_jvm_s"),
     ["q", "o"], ["q", "o", "p"]),
]


def model(form, pts):
    """Fits form to [(n, y)]; returns (predict(n), text of the fitted form)."""
    ns = [n for n, _ in pts]
    ys = [y for _, y in pts]
    if form == "flat" or len(set(ns)) == 1:
        m = sum(ys) / len(ys)
        return (lambda n: m), "%.4g (mean)" % m
    if form == "linear":
        a, b = cap.fit(ns, ys)
        return (lambda n: a + b * n), "%.4g + %.4g·N" % (a, b)
    if form == "nlogn":
        a, b = cap.fit([n * math.log(n) for n in ns], ys)
        return (lambda n: a + b * n * math.log(n)), "%.4g + %.4g·N·ln N" % (a, b)
    if form == "logn":
        a, b = cap.fit([math.log(n) for n in ns], ys)
        return (lambda n: a + b * math.log(n)), "%.4g + %.4g·ln N" % (a, b)
    if form == "power":
        a, e = cap.fit([math.log(n) for n in ns], [math.log(y) for y in ys])
        return (lambda n: math.exp(a) * n ** e), "%.4g·N^%.3f" % (math.exp(a), e)
    if form == "miss":  # two shards at every point, so segment size = N / 2
        a, e = cap.fit([math.log(n / 2) for n in ns], [math.log(1 - y) for y in ys])
        return (lambda n: 1 - math.exp(a) * (n / 2) ** e), "1 − %.3g·(N/2)^%.3f" % (math.exp(a), e)
    raise ValueError(form)


def log_err(form, pred, meas):
    """The error in the space the band is applied in: log of the value, or of the miss rate for recall."""
    if form == "miss":
        return math.log((1 - pred) / (1 - meas))
    return math.log(pred / meas)


def band(form, value, w):
    if form == "miss":
        miss = 1 - value
        return 1 - miss * math.exp(w), 1 - miss * math.exp(-w)
    return value * math.exp(-w), value * math.exp(w)


def spread_1m(directory, getter, names):
    vals = []
    for name in names:
        day = "05" if name in ("k", "l", "m", "n", "o") else "06"  # runs (k)-(o) ran on 12-05, the rest on 12-06
        path = os.path.join(directory, "n1000000-2026-12-%s%s.json" % (day, name))
        if not os.path.exists(path):
            sys.exit("%s: a 1M run named in REPLICATES_1M / BUILD_OWNERS_1M is missing" % path)
        v = getter(Run(directory, name, os.path.basename(path), None))
        if v is not None:
            vals.append(v)
    return vals


def fmt(v, unit):
    if unit == "":
        return "%.4f" % v
    if abs(v) >= 100:
        return "%.0f %s" % (v, unit)
    if abs(v) >= 10:
        return "%.1f %s" % (v, unit)
    return "%.3g %s" % (v, unit)


BEGIN = "<!-- scale-curves.py: generated from here -->"
END = "<!-- scale-curves.py: generated to here -->"


def main():
    args = sys.argv[1:]
    page = None
    if args[:1] == ["--write"]:
        if len(args) < 2:
            sys.exit("usage: scale-curves.py [--write PAGE] [RESULTS_DIR]")
        page, args = args[1], args[2:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        tables(args[0] if args else os.path.join(HERE, "..", "bench", "results", "scale"))
    text = out.getvalue()
    print(text, end="")
    if page:
        if not os.path.isfile(page):
            sys.exit("%s: no such page" % page)
        with open(page) as f:
            doc = f.read()
        if BEGIN not in doc or END not in doc:
            sys.exit("%s: no '%s' ... '%s' markers to write between" % (page, BEGIN, END))
        head, rest = doc.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(page, "w") as f:
            f.write(head + BEGIN + "\n\n" + text + "\n" + END + tail)


def tables(directory):
    runs = {k: Run(directory, k, f, s) for k, (f, s) in POINTS.items()}
    p = runs["p"]

    back_rows, pred_rows = [], []
    for key, label, unit, form, get, back_pts, all_pts in MEASURES:
        back = [(runs[r].n, get(runs[r])) for r in back_pts if get(runs[r]) is not None]
        every = [(runs[r].n, get(runs[r])) for r in all_pts if get(runs[r]) is not None]
        f_back, text_back = model(form, back)
        meas3 = get(p)
        pred3 = f_back(BACKTEST)
        err = None if meas3 is None else log_err(form, pred3, meas3)
        reps = spread_1m(directory, get, BUILD_OWNERS_1M if key in ("build", "bytes", "heap") else REPLICATES_1M)
        if form == "miss":
            noise = 0.5 * abs(math.log((1 - min(reps)) / (1 - max(reps)))) if len(reps) > 1 else 0.0
        else:
            noise = 0.5 * math.log(max(reps) / min(reps)) if len(reps) > 1 else 0.0
        f_all, text_all = model(form, every)
        pred10 = f_all(TARGET)
        # A measure the 3M run did not record gets the largest back-test error of any measure (set below).
        back_rows.append((key, label, unit, form, text_back, back_pts, pred3, meas3, err))
        pred_rows.append([key, label, unit, form, text_all, [r for r in all_pts if get(runs[r]) is not None],
                          pred10, err, noise, reps])

    worst = max(abs(r[8]) for r in back_rows if r[8] is not None)
    print("### 10M chunks, two shards of 5M (the default config), 2 cores: predicted\n")
    print("Band: back-test log-error × %.2f (distance) ⊕ the 1M runs' half-spread; a measure 3M did not "
          "record takes the largest back-test error (%.0f %%)." % (DISTANCE, 100 * (math.exp(worst) - 1)))
    print()
    print("| measure | predicted 10M | band | form, fitted on 100k–3M | points | back-test error at 3M | 1M spread (runs) |")
    print("|---|---|---|---|---|---|---|")
    predicted = {}
    for key, label, unit, form, text, pts, pred10, err, noise, reps in pred_rows:
        e = worst if err is None else abs(err)
        w = math.hypot(e * DISTANCE, noise)
        lo, hi = band(form, pred10, w)
        predicted[key] = (pred10, lo, hi)
        sp = ("%s–%s (%d)" % (fmt(min(reps), unit), fmt(max(reps), unit), len(reps))) if reps else "—"
        et = "not measured" if err is None else "%+.0f %%%s" % (100 * (math.exp(err) - 1), " (miss)" if form == "miss" else "")
        print("| %s | **%s** | %s – %s | %s | %s | %s | %s |" % (label, fmt(pred10, unit), fmt(lo, unit), fmt(hi, unit),
                                                             text, ", ".join(pts), et, sp))
    b, blo, bhi = predicted["build"]
    r, rlo, rhi = predicted["rebuild"]
    print("| 1 %% rebuild ÷ full build | **%.3f** | %.3f – %.3f | the two rows above | | | |" % (r / b, rlo / bhi, rhi / blo))

    print("\n### The 3M back-test: fitted on 100k–1M only\n")
    print("| measure | form, fitted on 100k–1M | points | predicted 3M | measured 3M (p) | error |")
    print("|---|---|---|---|---|---|")
    for key, label, unit, form, text, pts, pred3, meas3, err in back_rows:
        if meas3 is None:
            print("| %s | %s | %s | %s | not recorded | — |" % (label, text, ", ".join(pts), fmt(pred3, unit)))
            continue
        if form == "miss":
            e = "%+.0f %% on the miss rate (%.3f against %.3f)" % (100 * (math.exp(err) - 1), 1 - pred3, 1 - meas3)
        else:
            e = "%+.1f %%" % (100 * (pred3 / meas3 - 1))
        print("| %s | %s | %s | %s | %s | %s |" % (label, text, ", ".join(pts), fmt(pred3, unit), fmt(meas3, unit), e))

    print("\n### What twenty shards of 500k change at 10M (measured ratios and per-shard figures, not fits)\n")
    s = runs["s"]
    shards = math.ceil(TARGET / cap.SHARD_CHUNKS)
    rec500 = spread_1m(directory, g("search.dense_recall_at_10"), REPLICATES_1M) + [g("search.dense_recall_at_10")(s)]
    per_shard_open = (s.doc["search"]["open_s"] - p.doc["search"]["open_s"]) / (6 - 2)
    heaps1 = spread_1m(directory, build_get("peak_live_heap_after_gc_mb", 1e-3), BUILD_OWNERS_1M)
    heap1 = sum(heaps1) / len(heaps1)
    heap3 = s.build["peak_live_heap_after_gc_mb"] / 1e3
    per_writer = (heap3 - heap1) / (3 - 1)
    writers = shards // 2
    wall_ratio = s.build["wall_s"] / p.build["wall_s"]
    rounds = math.ceil(shards / 2)
    print("| measure | 10M in 20 × 500k, 2 cores | from |")
    print("|---|---|---|")
    print("| dense recall@10, default depth (ef 316) | %.4f–%.4f | the 1M runs in 2 × 500k and 3M (s) in 6 × 500k: "
          "recall follows the shard's size |" % (min(rec500), max(rec500)))
    print("| hybrid p50 / p99, vector given | %.0f–%.0f / %.0f–%.0f ms | ⌈20 / 2⌉ = %d rounds × one 500k shard's "
          "%.2f–%.2f / %.2f–%.2f ms (capacity-model.py; (s): 3 rounds, %.2f / %.2f ms) |" % (
              rounds * cap.SHARD_P50_MS[0], rounds * cap.SHARD_P50_MS[1], rounds * cap.SHARD_P99_MS[0],
              rounds * cap.SHARD_P99_MS[1], rounds, cap.SHARD_P50_MS[0], cap.SHARD_P50_MS[1], cap.SHARD_P99_MS[0],
              cap.SHARD_P99_MS[1], dig(s.doc, STEADY + "hybrid_vector_given.p50_ms"),
              dig(s.doc, STEADY + "hybrid_vector_given.p99_ms")))
    print("| full build wall | %.0f s (%.0f–%.0f) | the two-shard prediction × %.3f, (s) ÷ (p) at 3M |" % (
        b * wall_ratio, blo * wall_ratio, bhi * wall_ratio, wall_ratio))
    print("| build heap live | %.1f GB | %d writers a subtask × %.2f GB a writer + %.2f GB: 1M (1 writer, mean "
          "%.2f GB) to 3M (s) (3 writers, %.2f GB); `-Xmx4g` no longer suffices |" % (
              heap1 - per_writer + writers * per_writer, writers, per_writer, heap1 - per_writer, heap1, heap3))
    print("| open, second in the JVM | %.2f s | (p) 2 shards %.3f s, (s) 6 shards %.3f s: %.3f s a shard |" % (
        p.doc["search"]["open_s"] + (shards - 2) * per_shard_open, p.doc["search"]["open_s"], s.doc["search"]["open_s"],
        per_shard_open))
    cold, _, _ = predicted["cold"]
    per_shard_cold = (s.doc["search"]["open_cold_jvm_s"] - p.doc["search"]["open_cold_jvm_s"]) / (6 - 2)
    print("| open, first in a fresh JVM | %.2f s | the two-shard prediction + %d × %.3f s a shard ((s) − (p) at 3M) |" % (
        cold + (shards - 2) * per_shard_cold, shards - 2, per_shard_cold))

    print("\n### Disk for one 10M build of the benchmark (linear from 3M (p); scale-log.md, run (p))\n")
    k = TARGET / BACKTEST
    snap = predicted["bytes"][0]
    rows = [("corpus (Parquet, corpus_bytes of (p))", p.doc["corpus_bytes"] / 1e9 * k),
            ("exact-search vectors (the benchmark's truth, not Kiln's)", EXACT_VECTORS_3M_GB * k),
            ("snapshot during the final merges (%.1f GB at 3M: %.2f× its %.1f GB)" % (
                MERGE_PEAK_3M_GB, MERGE_PEAK_3M_GB / (p.build["snapshot_bytes"] / 1e9), p.build["snapshot_bytes"] / 1e9),
             snap * MERGE_PEAK_3M_GB / (p.build["snapshot_bytes"] / 1e9)),
            ("Flink shuffle spill at its peak", SPILL_3M_GB * k)]
    print("| item | 10M |")
    print("|---|---|")
    for name, gb in rows:
        print("| %s | %.0f GB |" % (name, gb))
    corpus, truth, merge, spill = (gb for _, gb in rows)
    print("| the benchmark as it is: all four at once (an upper bound: spill and merges need not coincide) | **%.0f GB** |"
          % (corpus + truth + merge + spill))
    print("| corpus and truth generated on the fly: the merge peak at least; with the spill still held | **%.0f GB**; %.0f GB |"
          % (merge, merge + spill))
    print("| the same without the final merge to one segment (`index.max-segments` above 1): snapshot + spill | **%.0f GB** |"
          % (snap + spill))
    print("| int8 vectors add %d B a chunk on disk (the float32 vectors stay for rescoring): snapshot | %.0f GB |" % (
        INT8_EXTRA_B, snap + INT8_EXTRA_B * TARGET / 1e9))
    free = shutil.disk_usage(os.path.dirname(HERE)).free / 1e9
    print("| free on this machine's disk now | %.0f GB |" % free)

    print("\n### Points\n")
    print("Every point is one run, taken before the benchmark protocol (docs/results/README.md). Loaded by the "
          "protocol's rule 7 = 1-minute load at start above the 2 cores; by this session's rule = above %.1f at "
          "start or end (the end includes the run's own two busy JVMs).\n" % LOADED)
    print("| run | file | chunks | shards | 1-min load start → end | loaded: rule 7 / > %.1f |" % LOADED)
    print("|---|---|---|---|---|---|")
    for k, run in runs.items():
        print("| %s | %s%s | %s | %s | %s → %s | %s / %s |" % (
            k, run.file, " (%s)" % POINTS[k][1] if POINTS[k][1] else "", "{:,}".format(run.n), run.build.get("shards"),
            run.load[0], run.load[1], "yes" if run.load[0] > 2 else "no", "yes" if run.loaded() else "no"))

if __name__ == "__main__":
    main()
