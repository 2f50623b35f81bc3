#!/usr/bin/env bash
# Routed serving against one process (issue 46, item 7), all on this machine's loopback, separate JVMs:
# one `kiln serve` over every shard; two shard groups (`--shards`, the first with two replicas) and
# `kiln route` in front. HTTP load (scripts/bench-http.sh: closed-loop clients 1, 4, 16) against the
# single server and the router; then a replica of the first group is killed with kill -9 under load,
# and the router's answers during it are counted by status (no failure expected: the other replica
# of the group is up). The servers' background hashing of the snapshot is waited out first; after the load
# levels, "route_timing_ms" splits 50 sequential routed searches by the router's Server-Timing (medians).
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
  # Recorded here, not echoed: a $(serve ...) would run it in a subshell whose PIDS the cleanup never sees.
  PIDS+=($!)
  LAST_PID=$!
}
wait_up() { # port
  for _ in $(seq 1 240); do
    if curl -sf "http://127.0.0.1:$1/health" >/dev/null; then return 0; fi
    sleep 0.5
  done
  echo "bench-route: nothing answers on port $1 (log: $LOGS/$1.log)" >&2; exit 1
}
# Each server hashes the snapshot's files in the background after opening it; measured before that ends,
# the first target would compete with five JVMs' hashing and the later ones not.
wait_verified() { # port
  for _ in $(seq 1 1200); do
    if ! curl -sf "http://127.0.0.1:$1/health" | grep -Eq '"state" *: *"(pending|running)"'; then return 0; fi
    sleep 1
  done
  echo "bench-route: port $1 still verifying its snapshot after 20 min" >&2; exit 1
}
for p in 18200 18201 18202 18203 18210; do
  if curl -s -o /dev/null "http://127.0.0.1:$p/health"; then
    echo "bench-route: something already answers on port $p (a server of an earlier run?)" >&2; exit 1
  fi
done
serve 18200
serve 18201 --shards "0-$((HALF - 1))"
G0A=$LAST_PID
serve 18202 --shards "0-$((HALF - 1))"
serve 18203 --shards "$HALF-$((SHARDS - 1))"
for p in 18200 18201 18202 18203; do wait_up $p; done
for p in 18200 18201 18202 18203; do wait_verified $p; done
"$KILN_HOME/scripts/kiln" route --port 18210 --deadline-ms 5000 \
  --group http://127.0.0.1:18201,http://127.0.0.1:18202 --group http://127.0.0.1:18203 >"$LOGS/18210.log" 2>&1 &
PIDS+=($!)
wait_up 18210
# Where a routed search's time goes: the router's Server-Timing over 50 sequential searches,
# the median of each entry in ms (stats/legs/fetch: phase wall time; gN-PHASE: the round trip to group N;
# gN-PHASE-group: that group's own handling), and "hop": per search, total minus the slowest group's
# handling in each phase, i.e. what the router and the network add.
route_timing() {
  local words=(cancer protein cell gene mutation therapy vitamin brain infection immune receptor insulin tumor virus heart)
  for i in $(seq 0 49); do
    curl -s -o /dev/null -D - "http://127.0.0.1:18210/search?mode=$MODE&k=10&q=${words[$((i % 15))]}+${words[$(((i * 7 + 3) % 15))]}" \
      | tr -d '\r' | sed -n 's/^[Ss]erver-[Tt]iming: //p'
  done | awk -F', ' '{
      delete worst; total = 0
      for (i = 1; i <= NF; i++) {
        split($i, kv, ";dur="); print kv[1], kv[2]
        if (kv[1] == "total") total = kv[2]
        if (kv[1] ~ /-group$/) { p = kv[1]; sub(/^g[0-9]+-/, "", p); sub(/-group$/, "", p); if (kv[2] > worst[p]) worst[p] = kv[2] }
      }
      hop = total; for (p in worst) hop -= worst[p]; print "hop", hop
    }' | sort -k1,1 -k2,2g | awk '
      function flush() { if (n) { printf "%s\"%s\": %.2f", sep, key, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2); sep = ", " } }
      $1 != key { flush(); key = $1; n = 0 } { v[++n] = $2 } END { flush(); print "" }' | sed 's/^/{/; s/$/}/'
}
# Warm every JVM on the routed path (query model loaded, the phases compiled) as the single server warms
# with its own queries: 100 sequential searches each, unmeasured.
warm() { # port
  local words=(lava ocean protein gene storm cell market brain virus heart)
  for i in $(seq 0 99); do
    curl -s -o /dev/null "http://127.0.0.1:$1/search?mode=$MODE&k=10&q=${words[$((i % 10))]}+${words[$(((i * 3 + 1) % 10))]}" || true
  done
}
warm 18200
warm 18210
LOAD=("$KILN_HOME/scripts/bench-http.sh" --clients 1,4,16 --duration-s "$DURATION" --warmup-s 3 --mode "$MODE")
SINGLE=$("${LOAD[@]}" --url http://127.0.0.1:18200)
ROUTED=$("${LOAD[@]}" --url http://127.0.0.1:18210)
TIMING=$(route_timing) # after the load levels: warm JVMs
# Failover: 4 clients for 3 × DURATION; one replica of group 0 killed with kill -9 a third of the way in.
"$KILN_HOME/scripts/bench-http.sh" --clients 4 --duration-s $((DURATION * 3)) --warmup-s 0 --mode "$MODE" \
  --url http://127.0.0.1:18210 >"$LOGS/failover.json" &
LOADPID=$!
sleep "$DURATION"
kill -9 "$G0A"
wait "$LOADPID"
REPORT=$(printf '{"snapshots": "%s", "shards": %s, "mode": "%s", "single": %s, "routed": %s, "route_timing_ms": %s, "failover_kill9": %s}\n' \
  "$SNAPSHOTS" "$SHARDS" "$MODE" "$SINGLE" "$ROUTED" "$TIMING" "$(cat "$LOGS/failover.json")")
if [[ -n "$OUT" ]]; then echo "$REPORT" >"$OUT"; fi
echo "$REPORT"
