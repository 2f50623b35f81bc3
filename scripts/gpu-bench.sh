#!/usr/bin/env bash
# Embedding throughput of one model on a GPU, unattended: prints ONE JSON object on stdout (device and its
# name, chunks/s and tokens/s of the best batch size, the batch-size sweep; GpuBench's Javadoc has every
# key); Maven, nvidia-smi and the JVM's logs go to stderr. A copy of the JSON lands in kiln-data/.
#   scripts/gpu-bench.sh [--device gpu|gpu:N|cpu] [--chunks N] [--model NAME] [--batch-sizes 1,16,64,256]
#                        [--threads N] [--corpus FILE.jsonl|DIR]
# --device gpu (default) builds with the `gpu` Maven profile (CUDA natives: ONNX Runtime GPU and PyTorch
# CUDA, 0.5-2.4 GB of jars, downloaded once into ~/.m2; they must match the host's NVIDIA driver and CUDA 12
# runtime, see embed/pom.xml; override with -Dkiln.gpu.onnxruntime.version=... in MAVEN_ARGS).
# --device cpu is the quick path that needs no GPU: `scripts/gpu-bench.sh --device cpu --chunks 200`.
# A run that asked for a GPU and could not use one reports "fell_back": true (CPU numbers) and exits 3.
# Corpus: ../shared/datasets/scifact/corpus.jsonl when present, else this repository's docs/.
# Environment: MAVEN_ARGS (e.g. -o), GPU_BENCH_SKIP_BUILD=1 (use what is built), BENCH_HEAP (8g).
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
usage() { echo "gpu-bench: $1 (usage: scripts/gpu-bench.sh [--device gpu|gpu:N|cpu] [--chunks N] [--model NAME]" \
  "[--batch-sizes LIST] [--threads N] [--corpus FILE|DIR])" >&2; exit 2; }
DEVICE=gpu
CORPUS="$KILN_HOME/../shared/datasets/scifact/corpus.jsonl"
[[ -f "$CORPUS" ]] || CORPUS="$KILN_HOME/docs"
ARGS=()
while (($#)); do
  [[ $# -ge 2 ]] || usage "$1 needs a value"
  case "$1" in
    --device) DEVICE="$2" ;;
    --corpus) CORPUS="$2" ;;
    --chunks|--model|--batch-sizes|--threads) ARGS+=("$1" "$2") ;;
    *) usage "unknown option $1" ;;
  esac
  shift 2
done
[[ -e "$CORPUS" ]] || usage "corpus $CORPUS not found"
case "$DEVICE" in cpu|gpu|gpu:[0-9]*) ;; *) usage "--device must be gpu, gpu:N or cpu, was '$DEVICE'" ;; esac

NAME=""
if [[ "$DEVICE" != cpu ]]; then
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv >&2 || true
    INDEX="${DEVICE#gpu}"; INDEX="${INDEX#:}"
    NAME="$(nvidia-smi --query-gpu=name --format=csv,noheader -i "${INDEX:-0}" 2>/dev/null | head -1 || true)"
  else
    echo "gpu-bench: nvidia-smi not found; expect the CPU fallback (\"fell_back\": true)" >&2
  fi
fi
PROFILE=()
[[ "$DEVICE" == cpu ]] || PROFILE=(-Pgpu)
if [[ "${GPU_BENCH_SKIP_BUILD:-}" != 1 ]]; then
  (cd "$KILN_HOME" && mvn -B -q "${PROFILE[@]}" -DskipTests -Dkiln.shade.skip=true ${MAVEN_ARGS:-} package -pl bench -am) >&2
fi
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache-gpu}"
OUT="$(mkdir -p "$KILN_HOME/kiln-data" && echo "$KILN_HOME/kiln-data")/gpu-bench-$(date -u +%Y%m%dT%H%M%SZ).json"
"$JAVA_HOME/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
  --sun-misc-unsafe-memory-access=allow -Xmx${BENCH_HEAP:-8g} \
  -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" ${BENCH_JAVA_OPTS:-} \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.GpuBench \
  --corpus "$CORPUS" --device "$DEVICE" ${NAME:+--device-name "$NAME"} ${ARGS[@]+"${ARGS[@]}"} --json-out "$OUT" >&2
cat "$OUT"
if [[ "$DEVICE" != cpu ]] && grep -q '"fell_back" : true' "$OUT"; then
  echo "gpu-bench: asked for $DEVICE but ran on the CPU (see device_reason)" >&2
  exit 3
fi
