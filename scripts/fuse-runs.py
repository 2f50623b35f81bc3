#!/usr/bin/env python3
"""Fuse TREC run files (from `kiln eval --run FILE`) and score the fusions against BEIR qrels.

Used to measure multi-model fusion without building it into a snapshot: build one snapshot per model,
write each mode's run with `kiln eval --run`, then

    scripts/fuse-runs.py QRELS NAME=RUN [NAME=RUN ...]

prints nDCG@10 of every run alone and of every combination of two or more, fused by min-max blend with
equal weights and by RRF (k 60). Document ids and scores are taken as written (runs are document level).
"""
import collections
import itertools
import math
import sys


def read_run(path):
    run = collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            run[qid][doc] = float(score)
    return run


def read_qrels(path):
    grades = collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3 or not fields[2].strip().lstrip("-").isdigit():
                continue  # header
            grades[fields[0]][fields[1]] = int(fields[2])
    return grades


def ndcg_at(k, ranked, grades):
    dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if grades.get(d, 0) > 0)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def min_max(scores):
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    return {d: (s - lo) / (hi - lo) if hi > lo else 1.0 for d, s in scores.items()}


def fuse(runs, qid, method):
    fused = collections.defaultdict(float)
    for run in runs:
        if method == "blend":
            for d, s in min_max(run.get(qid, {})).items():
                fused[d] += s / len(runs)
        else:
            ranked = sorted(run.get(qid, {}).items(), key=lambda x: -x[1])
            for i, (d, _) in enumerate(ranked):
                fused[d] += 1.0 / (60 + i + 1)
    return [d for d, _ in sorted(fused.items(), key=lambda x: (-x[1], x[0]))]


def score(runs, qrels, method):
    return sum(ndcg_at(10, fuse(runs, q, method), qrels[q]) for q in qrels) / len(qrels)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    qrels = read_qrels(argv[1])
    names, runs = [], []
    for arg in argv[2:]:
        name, _, path = arg.partition("=")
        names.append(name)
        runs.append(read_run(path))
    for name, run in zip(names, runs):
        print(f"{name:40s} nDCG@10 {score([run], qrels, 'blend'):.4f}")
    for size in range(2, len(runs) + 1):
        for combo in itertools.combinations(range(len(runs)), size):
            chosen = [runs[i] for i in combo]
            label = "+".join(names[i] for i in combo)
            print(f"{label:40s} blend {score(chosen, qrels, 'blend'):.4f}  rrf {score(chosen, qrels, 'rrf'):.4f}")


if __name__ == "__main__":
    main(sys.argv)
