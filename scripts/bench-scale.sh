#!/usr/bin/env bash
# Scale benchmark: Kiln vs raw Lucene on the same synthetic corpus of N one-chunk records with precomputed
# vectors, then the searcher on the snapshot, then a rebuild after 1 % of the records changed (on JDK 25+
# that rebuild again with a JVM AOT cache trained by an untimed one, as scripts/kiln build keeps; --skip-aot);
# each rebuild runs --rebuilds times (default 3), rolled back between, and the median is the ratio's; last, a
# rebuild after 1 % of the records changed again, all in one file (part-0000), over the last rebuild: the other
# files are unchanged since it (corpus-files.tsv), so that build leaves them unread.
#   scripts/bench-scale.sh --chunks 100000 [--json]     (N also as 100k, 1m)
# Deterministic: the corpus, the queries and the changed records are functions of --seed (default 42); queries.json
# (reported on) and calibration-queries.json (EfSweep chooses ef on it) mix disjoint halves of the dataset's queries.
# Data: vectors are random convex mixes of 2-3 real SciFact document vectors plus Gaussian noise (--noise,
# default 0.01 per dimension), re-normalised; text draws words from SciFact's unigram distribution with its
# length list; 8 tenants. SciFact is embedded once with the default model into kiln-data/bench-scale/base-scifact
# (stored embeddings/*.parquet) and its queries once into query-vectors.json; later runs reuse them.
# Each step (Kiln build, raw Lucene build, searcher, rebuild) runs in its own JVM with --heap (default 4g), so
# peak heap and RSS are per step; every step's JVM gets scripts/kiln's huge-page option (scripts/lib/hugepages.sh). Results: kiln-data/bench-scale/n<N>/result.json (and stdout with --json),
# a summary on stderr, logs in kiln-data/bench-scale/n<N>/logs/. Other options: scripts/bench-scale.sh --help.
#   scripts/bench-scale.sh --chunks N --pairs P   Kiln's full build and the fair raw Lucene build (a thread per
#       writer, vectors read as primitive floats: RawLuceneStep) alternated P times on one corpus (K R, R K, …), each
#       a fresh JVM on an emptied folder; no search or rebuild steps. Per run wall, CPU, load average at start/end;
#       per pair Kiln/raw wall and CPU with median, min, max (BuildPairs): n<N>-pairs/build-pairs.json, copied to
#       bench/results/scale/build-pairs-n<N>-<date>.json
#   scripts/bench-scale.sh --chart DIR RESULT.json...   cost-against-N PNGs (log-log) from several runs' results
#   scripts/bench-scale.sh --remote N [ROUNDS]   local and S3-bucket (s3proxy) builds, alternated: one pair of full
#       builds ("pairs": 1), ROUNDS (3) pairs of rebuilds after a fresh 1 % change in one file (one_file[]), ROUNDS
#       pairs of unchanged rebuilds (unchanged[]), order L,R then R,L …; per build wall_s, snapshot_bytes,
#       bucket_bytes_uploaded, load_average; per remote build a following searcher's switch_s, downloaded_bytes and
#       plain_get_s (GETs of the same files); ROUNDS cold-JVM open pairs (cold_open[]); "summary": per measure the
#       per-pair values (remote/local, fractions of the snapshot's bytes, switch/GET), median, min, max, target
#   scripts/bench-scale.sh --nights N [NIGHTS [KEEP]]   NIGHTS (10) nightly 1 % rebuilds in a bucket, gc --keep KEEP (3),
#                                        a following searcher: bytes uploaded / downloaded, bucket bytes, latency
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$KILN_HOME"
source "$KILN_HOME/scripts/lib/java-env.sh"
if [[ " $* " == *" --help "* || $# -eq 0 ]]; then
  sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'
  echo "options: --chunks N [--json] [--seed S] [--noise SIGMA] [--queries Q] [--recall-queries R] [--threads 1,2,4]"
  echo "         [--qps-queries N] [--heap 4g] [--work DIR] [--datasets DIR] [--dataset scifact] [--skip-raw] [--skip-rebuild] [--skip-aot] [--keep] [--pairs P]"
  [[ $# -eq 0 ]] && exit 2 || exit 0
fi
DATASETS="${KILN_DATASETS:-$KILN_HOME/../shared/datasets}"
if [[ "${1:-}" != "--chart" && ! -f "$DATASETS/scifact/corpus.jsonl" ]]; then
  echo "bench-scale: needs the SciFact dataset under $DATASETS (set KILN_DATASETS)" >&2
  exit 2
fi
if [[ -z "${KILN_BENCH_NO_BUILD:-}" ]]; then
  MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" mvn -B -q -o -DskipTests -Dkiln.shade.skip=true package -pl bench -am >&2
fi
# The run uses its own copy of the project's jars, so a rebuild during a long run cannot change them under it.
JARS="$KILN_HOME/kiln-data/bench-scale/jars/$$"
mkdir -p "$JARS"
trap 'rm -rf "$JARS"' EXIT
CP=""
for j in $(ls "$KILN_HOME"/bench/target/kiln-bench-*.jar | head -n 1) $(tr ':' ' ' < bench/target/classpath.txt); do
  if [[ "$j" == "$KILN_HOME"/* ]]; then cp "$j" "$JARS/"; j="$JARS/$(basename "$j")"; fi
  CP="${CP:+$CP:}$j"
done
if [[ "${1:-}" == "--chart" ]]; then
  shift
  exec java -cp "$CP" dev.kiln.bench.scale.ScaleChart "$@"
fi
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache}"
MAIN=(dev.kiln.bench.scale.ScaleBench --datasets "$DATASETS" "$@")
if [[ "${1:-}" == "--nights" ]]; then
  # Nightly 1 % rebuilds on one bucket root, gc and a following searcher each night: RemoteDriftBench.
  MAIN=(dev.kiln.bench.scale.RemoteDriftBench "$DATASETS" "${2:?--nights N [NIGHTS [KEEP]]}" "$KILN_HOME/kiln-data/bench-scale" "${3:-10}" "${4:-3}")
fi
if [[ "${1:-}" == "--remote" ]]; then
  # The same builds with corpus and snapshots in an S3 bucket (s3proxy), beside the local ones: RemoteScaleBench.
  MAIN=(dev.kiln.bench.scale.RemoteScaleBench "$DATASETS" "${2:?--remote N [ROUNDS]}" "$KILN_HOME/kiln-data/bench-scale" "${3:-3}")
fi
# Every step's JVM inherits this one's options (ChildRun): the huge-page setting scripts/kiln gives.
source "$KILN_HOME/scripts/lib/hugepages.sh"
kiln_hugepage_args
java "${KILN_HUGEPAGE_ARGS[@]}" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Xmx1g -Dkiln.home="$KILN_HOME" -Dkiln.commit="$(git -C "$KILN_HOME" rev-parse --short HEAD 2>/dev/null || echo unknown)" -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" -Dlog4j2.configurationFile=classpath:log4j2.properties \
  -Dkiln.flink.plugins="${FLINK_PLUGINS_DIR:-$KILN_HOME/jobs/target/flink-plugins}" \
  -cp "$CP" "${MAIN[@]}"
