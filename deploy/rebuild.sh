#!/usr/bin/env bash
# Nightly rebuild on a Flink session cluster: build (the job publishes) → gc. The session's TaskManagers
# need DJL and ONNX Runtime in Flink's lib/, parent-first, to run a build every night without a restart
# (docs/DEPLOYMENT.md, "Several builds on one TaskManager").
# Run it from a scheduler (cron, Airflow, the CronJob in deploy/k8s/rebuild-cronjob.yaml, which runs the copy
# deploy/Dockerfile puts at /opt/kiln/rebuild.sh); it exits non-zero
# when the build fails, so the scheduler sees it, and only collects garbage after a successful build.
#
#   KILN_JAR        the job jar (jobs/target/kiln-jobs-*-flink.jar; /opt/flink/usrlib/kiln-jobs.jar in deploy/Dockerfile's image)
#   KILN_CONFIG     build.yaml (corpus, model, shards, ...)
#   KILN_SNAPSHOTS  the snapshots root, reachable from this client and every TaskManager (shared FS, s3://, hdfs://)
#   KILN_KEEP       complete snapshots to keep (default 3); FLINK_HOME, KILN_PARALLELISM optional
# Not detached (no -d): this script waits for the build, so it runs gc only after a published build.
set -euo pipefail
: "${KILN_JAR:?set KILN_JAR}" "${KILN_CONFIG:?set KILN_CONFIG}" "${KILN_SNAPSHOTS:?set KILN_SNAPSHOTS}"
FLINK="${FLINK_HOME:-/opt/flink}/bin/flink"
PARALLELISM="${KILN_PARALLELISM:-8}"

echo "$(date -u +%FT%TZ) kiln rebuild: building into $KILN_SNAPSHOTS"
"$FLINK" run -p "$PARALLELISM" "$KILN_JAR" \
    --config "$KILN_CONFIG" --snapshots "$KILN_SNAPSHOTS" --parallelism "$PARALLELISM"

echo "$(date -u +%FT%TZ) kiln rebuild: built and published; removing old snapshots"
# The job jar's main class is the build; the snapshots commands run from the same jar with java -cp.
java -cp "$KILN_JAR:${FLINK_HOME:-/opt/flink}/lib/*" dev.kiln.cli.Kiln snapshots gc \
    --snapshots "$KILN_SNAPSHOTS" --keep "${KILN_KEEP:-3}"
