#!/usr/bin/env bash
# Cosines of queries and candidate documents under a bundled model, for measuring rerank levers with
# scripts/rerank-runs.py before building them (see dev.kiln.bench.CandidateCosines).
#   scripts/candidate-cosines.sh --corpus corpus.jsonl --model bge-small-en-v15-q --represent sentences \
#       --depth 30 --out cos.tsv --run queries.jsonl=run.txt [--run ...] [--threads N]
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
(cd "$KILN_HOME" && mvn -B -q -DskipTests -Dkiln.shade.skip=true package -pl bench -am) >&2
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache}"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -Xmx${BENCH_HEAP:-3g} \
  -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.CandidateCosines "$@"
