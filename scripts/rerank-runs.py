#!/usr/bin/env python3
"""Measure a rerank lever on run files before building it: blend a run's scores with candidate cosines.

    scripts/rerank-runs.py QRELS RUN DEPTH NAME=COSINES.tsv [NAME=COSINES.tsv ...] [--weights W,W,...]

RUN is a TREC run from `kiln eval --run`; each COSINES.tsv holds `qid doc cosine` rows for the run's
first DEPTH documents (`scripts/candidate-cosines.sh`). Within the first DEPTH documents of each query
the run's score and every feature are min-max normalised and blended, the run's score weighted
1 − sum(feature weights); the rest of the run keeps its order below them. Without --weights it prints
the eight best weight combinations over a grid 0, 0.1, …, 0.4 per feature and the run alone: grid-search
on a tuning split, then pass the chosen weights with --weights on the test split.
"""
import importlib.util
import itertools
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("fuse_runs", os.path.join(_here, "fuse-runs.py"))
fuse_runs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuse_runs)


def read_features(path):
    feature = {}
    with open(path) as f:
        for line in f:
            qid, doc, cosine = line.split()[:3]
            feature.setdefault(qid, {})[doc] = float(cosine)
    return feature


def mean_ndcg(qrels, run, features, depth, weights):
    total = 0.0
    for qid, grades in qrels.items():
        ranked = sorted(run.get(qid, {}).items(), key=lambda x: -x[1])
        if not ranked:
            continue  # a query with nothing retrieved scores 0 but still counts
        top, rest = dict(ranked[:depth]), ranked[depth:]
        columns = [fuse_runs.min_max(top)]
        for feature in features:
            scores = feature.get(qid, {})
            missing = [d for d in top if d not in scores]
            if missing:
                sys.exit(f"rerank-runs: {len(missing)} of query {qid}'s first {depth} documents have no cosine "
                         f"(e.g. {missing[0]}); run candidate-cosines with the same run and depth")
            columns.append(fuse_runs.min_max({d: scores[d] for d in top}))
        column_weights = [1.0 - sum(weights)] + list(weights)
        blended = {d: sum(w * c[d] for w, c in zip(column_weights, columns)) for d in top}
        order = sorted(blended, key=lambda d: -blended[d])
        total += fuse_runs.ndcg_at(10, order + [d for d, _ in rest], grades)
    return total / len(qrels)


def main(argv):
    args = list(argv[1:])
    fixed = None
    if "--weights" in args:
        i = args.index("--weights")
        fixed = [float(w) for w in args[i + 1].split(",")]
        del args[i:i + 2]
    if len(args) < 4:
        sys.exit(__doc__)
    qrels = fuse_runs.read_qrels(args[0])
    run = fuse_runs.read_run(args[1])
    depth = int(args[2])
    names, features = [], []
    for pair in args[3:]:
        name, _, path = pair.partition("=")
        names.append(name)
        features.append(read_features(path))
    if fixed is not None:
        if len(fixed) != len(features):
            sys.exit(f"rerank-runs: {len(fixed)} weights for {len(features)} features")
        print(f"nDCG@10 {mean_ndcg(qrels, run, features, depth, fixed):.4f}  weights {dict(zip(names, fixed))}")
        return
    grid = [0.0, 0.1, 0.2, 0.3, 0.4]
    results = []
    for weights in itertools.product(grid, repeat=len(features)):
        if sum(weights) < 0.95:
            results.append((mean_ndcg(qrels, run, features, depth, weights), weights))
    results.sort(key=lambda x: -x[0])
    for score, weights in results[:8]:
        print(f"nDCG@10 {score:.4f}  weights {dict(zip(names, weights))}")
    print(f"nDCG@10 {mean_ndcg(qrels, run, features, depth, [0.0] * len(features)):.4f}  the run alone")


if __name__ == "__main__":
    main(sys.argv)
