#!/usr/bin/env bash
# Embedding throughput on this machine: Flink embed operator vs a raw DJL predictor loop over the same
# chunks in one run, then raw chunks/s per model (fp32 vs int8 where both exist).
#   scripts/bench-embed.sh [CORPUS.jsonl]   (default: ../shared/datasets/scifact/corpus.jsonl)
# Environment: BENCH_DOCS (per-model docs, 100), BENCH_COMPARE_DOCS (operator-vs-raw docs, 300),
#              BENCH_MODELS (comma list; the first one is compared), BENCH_THREADS (default: all cores),
#              BENCH_BATCH (default: the operator's automatic size), BENCH_COMPARE_BATCH (also time the first
#              model at this batch size, alternated with the default in the same run).
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
CORPUS="${1:-$KILN_HOME/../shared/datasets/scifact/corpus.jsonl}"
[[ -f "$CORPUS" ]] || { echo "bench-embed: corpus $CORPUS not found" >&2; exit 2; }
(cd "$KILN_HOME" && mvn -B -q -DskipTests -Dkiln.shade.skip=true package -pl bench -am) >&2
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache}"
exec "$JAVA_HOME/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
  --sun-misc-unsafe-memory-access=allow -Xmx${BENCH_HEAP:-3g} \
  -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" ${BENCH_JAVA_OPTS:-} \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.EmbedBench \
  --corpus "$CORPUS" --docs "${BENCH_DOCS:-100}" --compare-docs "${BENCH_COMPARE_DOCS:-300}" \
  --models "${BENCH_MODELS:-all-minilm-l6-v2-q,all-minilm-l6-v2,bge-small-en-v15-q,e5-small-v2-q,bge-small-zh-v15-q}" \
  ${BENCH_THREADS:+--threads "$BENCH_THREADS"} ${BENCH_BATCH:+--batch-size "$BENCH_BATCH"} \
  ${BENCH_COMPARE_BATCH:+--compare-batch "$BENCH_COMPARE_BATCH"}
