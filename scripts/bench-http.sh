#!/usr/bin/env bash
# HTTP load against a running `kiln serve` on this machine: closed-loop clients (1, 4, 16 by default)
# sending GET /search back to back; p50/p90/p99 latency and QPS per level as JSON (dev.kiln.bench.HttpLoad).
#   scripts/kiln serve --snapshots DIR --port 8080 &
#   scripts/bench-http.sh [--url http://127.0.0.1:8080] [--clients 1,4,16] [--duration-s 10 | --requests N]
#                         [--warmup-s 3] [--mode hybrid|dense|bm25] [--k 10] [--queries FILE]
# Only loopback targets are accepted. KILN_API_KEY: the key to send, when the server wants one.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
if [[ ! -f "$KILN_HOME/bench/target/classpath.txt" || -n "$(find "$KILN_HOME/bench/src/main" -newer "$KILN_HOME/bench/target/classpath.txt" -print -quit)" ]]; then
  (cd "$KILN_HOME" && mvn -B -q -DskipTests -Dkiln.shade.skip=true package -pl bench -am) >&2
fi
exec "$JAVA_HOME/bin/java" -Xmx${BENCH_HEAP:-1g} \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.HttpLoad "$@"
