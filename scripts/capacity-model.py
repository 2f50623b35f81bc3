#!/usr/bin/env python3
"""Kiln's capacity model on paper (docs/CAPACITY.md): prints the fits and the sizing tables.

Every constant below is a measured figure (the comment names its file and row) or a stated assumption
(marked ASSUMPTION); change an assumption here and rerun to see its effect. No input files are read:
the figures are copied from the results they cite, so the model runs anywhere with python3.
"""
import math

# --- Measured: snapshot bytes and searcher RSS (bench/results/scale/*.json: kiln_build.snapshot_bytes,
# search.peak_rss_mb), runs 100k (q), 1M (o), 3M (p).
RUNS = [  # chunks, snapshot bytes, searcher peak RSS bytes
    (100_000, 325_383_953, 1_472.172032e6),      # n100000-2026-12-06q.json
    (1_000_000, 3_210_333_649, 7_107.018752e6),  # n1000000-2026-12-05o.json
    (3_000_000, 9_612_853_568, 18_425.163776e6), # n3000000-2026-12-06p.json
]

# --- Measured: bytes per chunk by component.
VEC_F32 = 1536.0      # .vec, 4 x 384 (quantization.md, 1M table; manifest of the 200k snapshot)
VEQ_INT8 = 400.0      # .veq, d + 16 (quantization.md, 1M table)
GRAPH = (29.7, 41.6)  # .vex at 500k-vector segments (quantization.md 1M) / 50k-vector segments (200k manifest)
POSTINGS = 458.3      # .doc 184.6 + .pos 191.9 + .tim 80.2 + .tip 0.6 + .nvd 1.0 (200k manifest)
POSITIONS = 191.9     # .pos alone: read only by phrase queries
STORED = 1204.7       # .fdt (200k manifest): read for the returned hits only
DOCVALUES = 18.3      # .dvd (200k manifest)
FINGERPRINTS = 16.0   # doc-fingerprints.kfp (200k manifest): read by incremental builds, not by search

# --- Measured: CPU and latency per 500k-chunk shard (2-core AMD EPYC, shared; docs/results/scale.md).
# Hybrid QPS at 4 threads on 2 cores, runs with 500k-vector shards (search.qps.4.hybrid): it embeds the
# query text (search(text, HYBRID), default chain), so core-ms per query = 2000 / QPS.
QPS4_1M = {"o": 145.6, "j": 153.2, "r": 155.4, "r-search": 162.6, "v": 152.4, "y": 158.6,
           "aa": 175.5, "ab": 150.2, "ab-search": 168.5}   # 2 shards of 500k
QPS4_3M_6SHARDS = 78.0                                       # (s): 6 shards of 500k
EMBED_MEAN_MS, EMBED_P99_MS = 3.28, 7.21   # search.latency.query_embedding, 100k (q)
# Hybrid (vector given) steady p99 with one 500k shard per core: the 1M runs (two shards, two cores).
SHARD_P50_MS = (4.14, 6.62)   # scale.md, 1M row "hybrid ... steady p50 / p99": (aa) .. (ab)
SHARD_P99_MS = (12.36, 21.42) # (r) .. (ab)
# int8 at 1M, same day as float32 (j) (n1000000-int8-2026-12-05.json, n1000000-2026-12-05j.json):
# hybrid QPS at 4 threads 142.1 against 153.2, so a shard's hybrid costs (2000/142.1-3.28)/2 = 5.40
# against (2000/153.2-3.28)/2 = 4.89 core-ms; measured with every float32 vector in the page cache.
INT8_CPU_FACTOR = ((2000 / 142.1 - EMBED_MEAN_MS) / 2) / ((2000 / 153.2 - EMBED_MEAN_MS) / 2)
EF_500K = 316                 # the automatic depth on 500k-vector segments (scale.md, 1M row)
# Load: HTTP at 1M (http-n1000000-2026-12-04c.json): 1 client p99 74.95 ms; 4 clients (83 % of the
# 16-client QPS) p99 90.47 ms.
LOAD_P99_INFLATION = 90.47 / 74.95

# --- ASSUMPTIONS (docs/CAPACITY.md, "Error bars").
SHARD_CHUNKS = 500_000        # recall 0.9675 at the default depth at 3M in 500k shards (run (s))
UTILISATION = 0.7             # a replica's cores busy at most 70 % at the target QPS
PAGE_CACHE_SHARE = 0.7        # share of a node's RAM given to the resident set
HOP_MS = (2.0, 10.0)
# int8 keeps float32 vectors for rescoring on disk: each query reads ef of them per shard. Cost of one
# uncached random read through the page cache (local NVMe, queue depth 1), ms:
RESCORE_READ_MS = 0.1          # router's own share: three fan-out round trips + fusion, idle LAN
P99_TARGET_MS = 100.0
NODES = [("64 GB / 16 cores", 64e9, 16), ("128 GB / 32 cores", 128e9, 32), ("64 GB / 32 cores", 64e9, 32)]


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def per_shard_core_ms():
    vals = [(2000.0 / q - EMBED_MEAN_MS) / 2 for q in QPS4_1M.values()]
    vals.append((2000.0 / QPS4_3M_6SHARDS - EMBED_MEAN_MS) / 6)
    return min(vals), max(vals)


def resident(encoding):
    dense = (VEC_F32 if encoding == "float32" else VEQ_INT8) + GRAPH[0]
    return dense + POSTINGS + DOCVALUES


def main():
    xs = [r[0] for r in RUNS]
    a, b = fit(xs, [r[1] for r in RUNS])
    print("snapshot bytes = %.3g + %.1f B x N" % (a, b))
    for n, y, _ in RUNS:
        print("  N=%d measured %.4g fit %.4g residual %+.2f %%" % (n, y, a + b * n, 100 * (y - a - b * n) / y))
    ra, rb = fit(xs, [r[2] for r in RUNS])
    print("searcher RSS = %.3g + %.1f B x N" % (ra, rb))
    for n, s, r in RUNS:
        print("  N=%d RSS/snapshot %.2f residual %+.2f %%" % (n, r / s, 100 * (r - ra - rb * n) / r))
    comp = VEC_F32 + GRAPH[1] + POSTINGS + STORED + DOCVALUES + FINGERPRINTS
    print("components at 200k: %.0f B/chunk" % comp)
    lo, hi = per_shard_core_ms()
    print("hybrid core-ms per 500k shard: %.2f-%.2f (embedding %.2f per query per group)" % (lo, hi, EMBED_MEAN_MS))
    print("int8 CPU factor %.3f; load p99 inflation %.3f" % (INT8_CPU_FACTOR, LOAD_P99_INFLATION))
    for enc in ("float32", "int8"):
        print("resident B/chunk %s: %.0f" % (enc, resident(enc)))
    print()
    print("| chunks | vectors | node | chunks / group (shards) | groups | resident / group | "
          "p99 / group (+ hop 2-10 ms) | replicas / group at 200 QPS | nodes at 200 QPS | "
          "replicas at 1,000 QPS | nodes at 1,000 QPS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for total in (10_000_000, 100_000_000, 1_000_000_000):
        for enc in ("float32", "int8"):
            for name, ram, cores in NODES:
                if enc == "float32" and name == NODES[2][0]:
                    continue
                mem_shards = int(ram * PAGE_CACHE_SHARE / resident(enc) // SHARD_CHUNKS)
                budget = P99_TARGET_MS - EMBED_P99_MS - HOP_MS[1]
                round_ms = SHARD_P99_MS[1] * LOAD_P99_INFLATION
                if enc == "int8":
                    round_ms += EF_500K * RESCORE_READ_MS
                rounds = int(budget // round_ms)
                lat_shards = rounds * cores
                need = math.ceil(total / SHARD_CHUNKS)
                shards = min(mem_shards, lat_shards, need)
                groups = math.ceil(need / shards)
                shards = math.ceil(need / groups)   # spread evenly
                p99 = EMBED_P99_MS + math.ceil(shards / cores) * round_ms
                core_ms = EMBED_MEAN_MS + shards * hi * (INT8_CPU_FACTOR if enc == "int8" else 1.0)
                per_replica = cores * UTILISATION * 1000.0 / core_ms
                r200 = max(2, math.ceil(200 / per_replica))
                r1000 = max(2, math.ceil(1000 / per_replica))
                print("| %s | %s | %s | %.1fM (%d) | %d | %.0f GB | %.0f ms (%.0f-%.0f) | %d | %d | %d | %d |" % (
                    "{:,}".format(total // 1_000_000) + "M", enc, name, shards * SHARD_CHUNKS / 1e6, shards,
                    groups, shards * SHARD_CHUNKS * resident(enc) / 1e9, p99, p99 + HOP_MS[0], p99 + HOP_MS[1],
                    r200, groups * r200, r1000, groups * r1000))


if __name__ == "__main__":
    main()
