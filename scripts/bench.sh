#!/usr/bin/env bash
# Benchmarks, side by side with the raw libraries Kiln is built on, in the same run; prints ratios and
# writes target/kiln-report/index.html (tables + PNG charts).
#   scripts/bench.sh              JMH: ANN (Kiln/Lucene HNSW vs hnswlib-core), shard build vs raw IndexWriter,
#                                 BM25 latency vs raw Lucene, window chunker vs bare tokenizer, hybrid's dense side
#                                 with/without vector feedback vs raw Lucene kNN; ANN recall@10
#   scripts/bench.sh --e2e        + end-to-end builds at 1x/2x/4x corpus and parallelism 1/2
#   scripts/bench.sh --regress    + the quality regressions (kiln regress --json)
#   KILN_BENCH_JMH="AnnSearch"    run only matching JMH benchmarks
# Data: the Cranfield set in ../shared/datasets (override with KILN_DATASETS); its snapshot is built once
# into kiln-data/bench/ with the default model.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$KILN_HOME"
source "$KILN_HOME/scripts/lib/java-env.sh"
DATASETS="${KILN_DATASETS:-$KILN_HOME/../shared/datasets}"
SNAPSHOTS="$KILN_HOME/kiln-data/bench/cranfield/snapshots"
REPORT="$KILN_HOME/target/kiln-report"
mkdir -p "$REPORT"

if [[ ! -f "$SNAPSHOTS/CURRENT" ]]; then
  scripts/kiln build --corpus "$DATASETS/cranfield/corpus.jsonl" --snapshots "$SNAPSHOTS" >&2
fi
MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -B -q -DskipTests -Dkiln.shade.skip=true package -pl bench -am >&2
CP="$(ls bench/target/kiln-bench-*.jar | head -n 1):$(cat bench/target/classpath.txt)"
JAVA=(java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow
      -Dkiln.home="$KILN_HOME" -Dkiln.cache.dir="$KILN_HOME/kiln-data/cache" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true
      -DDJL_CACHE_DIR="$KILN_HOME/kiln-data/cache/djl" -Dkiln.bench.snapshots="$SNAPSHOTS"
      -Dkiln.bench.queries="$DATASETS/cranfield/queries.jsonl" -cp "$CP")

"${JAVA[@]}" org.openjdk.jmh.Main -rf json -rff "$REPORT/jmh.json" ${KILN_BENCH_JMH:-} >&2
"${JAVA[@]}" dev.kiln.bench.AnnRecall "$REPORT"
for arg in "$@"; do
  case "$arg" in
    --e2e) "${JAVA[@]}" -Xmx4g dev.kiln.bench.E2eBuildBenchmark "$DATASETS/cranfield/corpus.jsonl" "$REPORT" ;;
    --regress) scripts/kiln regress --datasets "$DATASETS" --json > "$REPORT/regress.json" || true ;;
    *) echo "bench.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
"${JAVA[@]}" dev.kiln.bench.BenchReport "$REPORT"
