#!/usr/bin/env bash
# Latency as users feel it (issue 47.3): single-client hybrid search from query TEXT, the query embedding
# included, on a kept scale-benchmark snapshot (scripts/bench-scale.sh --chunks N --model M --keep --skip-search;
# its run folder holds snapshots/ and queries.json, whose texts are real held-out dataset queries).
#   scripts/bench-latency.sh OUT.json RUN_DIR [PAIRS [ROUNDS [CACHE [MAX_QUERIES [PROBES]]]]]
# PAIRS (5) alternated pairs of fresh-JVM steps: cache off (every request pays the model) then the query cache
# CACHE (1024) over the same texts (the repeated-query case). Per step: open, the cold first query, then per
# distinct query text (the first MAX_QUERIES, 100) for ROUNDS (1) rounds after a warm-up round: total (search from
# text), embed alone, search with the vector given; the first PROBES (3) cache-off steps also time the tokenizer
# and ONNX Runtime session variants (60 texts). Each step's heap: -Dkiln.bench.heap (4g) via JAVA_TOOL_OPTIONS.
# OUT.json: every step and a summary (median and range of the steps' p50 and p99); logs beside it (OUT-logs/).
# The machine's load is recorded at each step's start and end.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$KILN_HOME"
source "$KILN_HOME/scripts/lib/java-env.sh"
if [[ $# -lt 2 || "$1" == "--help" ]]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  [[ $# -lt 2 ]] && exit 2 || exit 0
fi
OUT="$1"; RUN="$2"; shift 2
if [[ ! -f "$RUN/snapshots/CURRENT" || ! -f "$RUN/queries.json" ]]; then
  echo "bench-latency: $RUN must hold snapshots/CURRENT and queries.json (a kept bench-scale run)" >&2
  exit 2
fi
if [[ -z "${KILN_BENCH_NO_BUILD:-}" ]]; then
  MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -B -q -o -DskipTests -Dkiln.shade.skip=true package -pl bench -am >&2
fi
CP="$(ls "$KILN_HOME"/bench/target/kiln-bench-*.jar | head -n 1):$(cat bench/target/classpath.txt)"
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache}"
mkdir -p "$(dirname "$OUT")"
java --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Dkiln.commit="$(git -C "$KILN_HOME" rev-parse --short HEAD 2>/dev/null || echo unknown)" -Dkiln.cache.dir="$CACHE" \
  -Dai.djl.offline=true -DOPT_OUT_TRACKING=true -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" \
  -Dlog4j2.configurationFile=classpath:log4j2.properties -Xmx512m \
  -cp "$CP" dev.kiln.bench.scale.QueryLatencyBench "$OUT" "$RUN/snapshots" "$RUN/queries.json" "$@"
