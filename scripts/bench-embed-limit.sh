#!/usr/bin/env bash
# The embed stage against raw ONNX Runtime on this machine (issue 47 item 2): sweeps the raw configuration
# on one half of the passages, then alternates raw best / Kiln's TextEmbedder / Kiln's embed operator on the
# other half; tokens/s (wall) and tokens per CPU-second, the 1-minute load average per step.
#   scripts/bench-embed-limit.sh OUT.json [CORPUS.jsonl] [EmbedLimitBench options...]
#   e.g. scripts/bench-embed-limit.sh bench/results/embed/minilm.json "" --docs 300 --models all-minilm-l6-v2-q
# Options (EmbedLimitBench): --docs N --models a,b --pairs 3 --slots 2 --threads 1 --sweep-limit 60
#   --sweep false --spin-pairs N. BENCH_SKIP_BUILD=1 reuses bench/target.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
[[ $# -ge 1 ]] || { echo "usage: bench-embed-limit.sh OUT.json [CORPUS.jsonl] [options]" >&2; exit 2; }
OUT="$1"; shift
CORPUS="${1:-}"; [[ $# -ge 1 ]] && shift
CORPUS="${CORPUS:-$KILN_HOME/../shared/datasets/scifact/corpus.jsonl}"
[[ -f "$CORPUS" ]] || { echo "bench-embed-limit: corpus $CORPUS not found" >&2; exit 2; }
if [[ -z "${BENCH_SKIP_BUILD:-}" ]]; then
  (cd "$KILN_HOME" && mvn -B -o -q -DskipTests -Dkiln.shade.skip=true package -pl bench -am) >&2
fi
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache}"
BENCH_COMMIT="$(git -C "$KILN_HOME" rev-parse HEAD 2>/dev/null || echo unknown)"; export BENCH_COMMIT
exec "$JAVA_HOME/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
  --sun-misc-unsafe-memory-access=allow -Xmx${BENCH_HEAP:-3g} \
  -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" ${BENCH_JAVA_OPTS:-} \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.EmbedLimitBench \
  --corpus "$CORPUS" --out "$OUT" "$@"
