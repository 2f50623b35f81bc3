#!/usr/bin/env bash
# A/B of a rebuild between an earlier revision and the working tree: the same rolled-back corpus rebuilt
# with each side's jars, alternately, each under /usr/bin/time, so that a change worth a few percent of
# a rebuild shows through this machine's noise (±3 s on identical jars at 1M) in the process CPU too.
#   scripts/bench-rebuild-ab.sh BASE_REV RUN_DIR [PAIRS]
# RUN_DIR: a scale run kept by scripts/bench-scale.sh --keep (kiln-data/bench-scale/n1000000): its
# kiln-build.json names the full build every rebuild starts from (CURRENT is rolled back to it first),
# and its corpus is rebuilt as it is (the bench leaves it changed since that build). BASE_REV is built
# in a temporary git worktree (mvn -o package, no tests); the working tree's jars must be built
# (mvn install, as scripts/bench-scale.sh needs). PAIRS: default 3. Logs in RUN_DIR/logs/ab-*.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$KILN_HOME"
source scripts/lib/java-env.sh
source scripts/lib/hugepages.sh
BASE_REV="${1:?usage: bench-rebuild-ab.sh BASE_REV RUN_DIR [PAIRS]}"
RUN="$(cd "${2:?RUN_DIR}" && pwd)"
PAIRS="${3:-3}"
FULL="$(sed -n 's/^ *"snapshot" *: *"\([^"]*\)".*/\1/p' "$RUN/kiln-build.json" | head -n 1)"
[[ -n "$FULL" ]] || { echo "bench-rebuild-ab: no full build named in $RUN/kiln-build.json" >&2; exit 2; }
WT="$(mktemp -d "${TMPDIR:-/tmp}/kiln-ab-XXXXXX")"
trap 'git worktree remove --force "$WT" >/dev/null 2>&1 || rm -rf "$WT"' EXIT
git worktree add -q --detach "$WT" "$BASE_REV"
echo "bench-rebuild-ab: building $BASE_REV in $WT ..." >&2
(cd "$WT" && MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
  mvn -B -q -o -DskipTests -Dkiln.shade.skip=true -Dspotless.check.skip=true package >&2)
# The working tree's class path, and the same with every Kiln module's jar taken from the worktree.
CP_NEW="bench/target/kiln-bench-0.1.0-SNAPSHOT.jar:$(cat bench/target/classpath.txt)"
CP_OLD="bench/target/kiln-bench-0.1.0-SNAPSHOT.jar:$(tr ':' '\n' < bench/target/classpath.txt \
  | sed -E -e "s#^.*/dev/kiln/kiln-([a-z-]+)/0\.1\.0-SNAPSHOT/kiln-[a-z-]+-0\.1\.0-SNAPSHOT\.jar\$#$WT/\1/target/kiln-\1-0.1.0-SNAPSHOT.jar#" \
        -e "s#^$KILN_HOME/jobs/target/(kiln-jobs-0\.1\.0-SNAPSHOT\.jar)\$#$WT/jobs/target/\1#" | paste -sd:)"
kiln_hugepage_args
JOPTS=("${KILN_HUGEPAGE_ARGS[@]}" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED
  --sun-misc-unsafe-memory-access=allow -Dkiln.home="$KILN_HOME" -Dkiln.cache.dir="$KILN_HOME/kiln-data/cache"
  -Dai.djl.offline=true -DOPT_OUT_TRACKING=true -Dlog4j2.configurationFile=classpath:log4j2.properties
  -Dkiln.flink.plugins="${FLINK_PLUGINS_DIR:-$KILN_HOME/jobs/target/flink-plugins}")
# Back to the full build (a no-op when it is published already: the CLI refuses that rollback).
rollback() {
  if [[ "$(cat "$RUN/snapshots/CURRENT" 2>/dev/null)" != "$FULL" ]]; then
    java "${JOPTS[@]}" -Xmx1g -cp "$CP_NEW" dev.kiln.cli.Kiln snapshots rollback --snapshots "$RUN/snapshots" "$FULL" \
      > "$RUN/logs/ab-rollback.log" 2>&1 || { cat "$RUN/logs/ab-rollback.log" >&2; exit 1; }
  fi
}
mkdir -p "$RUN/logs"
printf '%-6s %-4s %9s %9s %9s %9s %9s\n' side pair "user s" "sys s" "wall s" "parse s" "write s"
for i in $(seq 1 "$PAIRS"); do
  for side in old new; do
    cp_var="CP_${side^^}"
    rollback
    log="$RUN/logs/ab-$side-$i.log"
    /usr/bin/time -f "%U %S %e" -o "$log.time" java "${JOPTS[@]}" -Xmx4g -cp "${!cp_var}" \
      dev.kiln.bench.scale.KilnBuildStep "$log.json" configs/build.yaml "$RUN/corpus" "$RUN/snapshots" > "$log" 2>&1
    read -r user sys wall < "$log.time"
    parse="$(grep -m1 'parse busy' "$log" | grep -oE '[0-9.]+ s' | tr -d ' s')"
    write="$(grep -m1 'shard write busy' "$log" | grep -oE '[0-9.]+ s' | tr -d ' s')"
    printf '%-6s %-4s %9s %9s %9s %9s %9s\n' "$side" "$i" "$user" "$sys" "$wall" "$parse" "$write"
  done
done
rollback
