#!/usr/bin/env bash
# Routed serving against one process (issue 46, item 7), all on this machine's loopback, separate JVMs:
# one `kiln serve` over every shard; two shard groups (`--shards`, the first with two replicas) and
# `kiln route` in front. HTTP load (scripts/bench-http.sh: closed-loop clients 1, 4, 16) against the
# single server and the router; then a replica of the first group is killed with kill -9 under load,
# and the router's answers during it are counted by status (no failure expected: the other replica
# of the group is up).
#   scripts/bench-route.sh --snapshots DIR --shards N [--duration-s 10] [--mode hybrid] [--out FILE]
# The snapshot's shard count N must be even (groups 0..N/2-1 and N/2..N-1). Every server runs Kiln's
# default search options (hybrid's feedback passes included: the router splits them into phases).
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SNAPSHOTS="" SHARDS="" DURATION=10 MODE=hybrid OUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --snapshots) SNAPSHOTS="$2"; shift 2 ;;
    --shards) SHARDS="$2"; shift 2 ;;
    --duration-s) DURATION="$2"; shift 2 ;;
    --mode) MODE="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "bench-route: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$SNAPSHOTS" || -z "$SHARDS" || $((SHARDS % 2)) -ne 0 ]]; then
  echo "bench-route: --snapshots DIR and an even --shards N are required" >&2
  exit 2
fi
HALF=$((SHARDS / 2))
COMMON=(--poll-ms 1000)
LOGS="$(mktemp -d)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
serve() { # port, extra args...
  local port="$1"; shift
  "$KILN_HOME/scripts/kiln" serve --snapshots "$SNAPSHOTS" --port "$port" "${COMMON[@]}" "$@" >"$LOGS/$port.log" 2>&1 &
  PIDS+=($!)
  echo $!
}
wait_up() { # port
  for _ in $(seq 1 240); do
    if curl -sf "http://127.0.0.1:$1/health" >/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "bench-route: nothing answers on port $1 (log: $LOGS/$1.log)" >&2; exit 1
}
serve 18200 >/dev/null
G0A=$(serve 18201 --shards "0-$((HALF - 1))")
serve 18202 --shards "0-$((HALF - 1))" >/dev/null
serve 18203 --shards "$HALF-$((SHARDS - 1))" >/dev/null
for p in 18200 18201 18202 18203; do wait_up $p; done
"$KILN_HOME/scripts/kiln" route --port 18210 --deadline-ms 5000 \
  --group http://127.0.0.1:18201,http://127.0.0.1:18202 --group http://127.0.0.1:18203 >"$LOGS/18210.log" 2>&1 &
PIDS+=($!)
wait_up 18210
LOAD=("$KILN_HOME/scripts/bench-http.sh" --clients 1,4,16 --duration-s "$DURATION" --warmup-s 3 --mode "$MODE")
SINGLE=$("${LOAD[@]}" --url http://127.0.0.1:18200)
ROUTED=$("${LOAD[@]}" --url http://127.0.0.1:18210)
# Failover: 4 clients for 3 × DURATION; one replica of group 0 killed with kill -9 a third of the way in.
"$KILN_HOME/scripts/bench-http.sh" --clients 4 --duration-s $((DURATION * 3)) --warmup-s 0 --mode "$MODE" \
  --url http://127.0.0.1:18210 >"$LOGS/failover.json" &
LOADPID=$!
sleep "$DURATION"
kill -9 "$G0A"
wait "$LOADPID"
REPORT=$(printf '{"snapshots": "%s", "shards": %s, "mode": "%s", "single": %s, "routed": %s, "failover_kill9": %s}\n' \
  "$SNAPSHOTS" "$SHARDS" "$MODE" "$SINGLE" "$ROUTED" "$(cat "$LOGS/failover.json")")
if [[ -n "$OUT" ]]; then echo "$REPORT" >"$OUT"; fi
echo "$REPORT"
