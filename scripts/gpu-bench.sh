#!/usr/bin/env bash
# Embedding throughput on a GPU host. Builds with the `gpu` Maven profile (CUDA natives: ONNX Runtime
# GPU and PyTorch CUDA, 0.5-2.4 GB of jars, downloaded once into ~/.m2), then runs the embedding
# benchmark with --device gpu: raw DJL loop vs Flink embed operator, then chunks/s per model.
#   scripts/gpu-bench.sh [CORPUS.jsonl]    (default: ../shared/datasets/scifact/corpus.jsonl)
# Environment: GPU_BENCH_DOCS (2000), GPU_BENCH_BATCH (128), GPU_BENCH_MODELS, CUDA_VISIBLE_DEVICES.
# Needs an NVIDIA driver and a CUDA 12 runtime that match the profile's natives (see embed/pom.xml;
# override with -Dkiln.gpu.pytorch.native=... -Dkiln.gpu.onnxruntime.version=... in MAVEN_ARGS).
# A slot that cannot see a GPU logs "EMBEDDING ON CPU" and the numbers are CPU numbers: check the log.
set -euo pipefail
KILN_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$KILN_HOME/scripts/lib/java-env.sh"
CORPUS="${1:-$KILN_HOME/../shared/datasets/scifact/corpus.jsonl}"
[[ -f "$CORPUS" ]] || { echo "gpu-bench: corpus $CORPUS not found" >&2; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv \
  || echo "gpu-bench: nvidia-smi not found; expect the CPU fallback warning" >&2
(cd "$KILN_HOME" && mvn -B -q -Pgpu -DskipTests -Dkiln.shade.skip=true ${MAVEN_ARGS:-} package -pl bench -am) >&2
CACHE="${KILN_CACHE_DIR:-$KILN_HOME/kiln-data/cache-gpu}"
"$JAVA_HOME/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED \
  --sun-misc-unsafe-memory-access=allow -Xmx${BENCH_HEAP:-8g} \
  -Dkiln.cache.dir="$CACHE" -Dai.djl.offline=true -DOPT_OUT_TRACKING=true \
  -DDJL_CACHE_DIR="$CACHE/djl" -DENGINE_CACHE_DIR="$CACHE/djl" ${BENCH_JAVA_OPTS:-} \
  -cp "$KILN_HOME/bench/target/classes:$(cat "$KILN_HOME/bench/target/classpath.txt")" dev.kiln.bench.EmbedBench \
  --corpus "$CORPUS" --device gpu --batch-size "${GPU_BENCH_BATCH:-128}" \
  --docs "${GPU_BENCH_DOCS:-2000}" --compare-docs "${GPU_BENCH_DOCS:-2000}" \
  --models "${GPU_BENCH_MODELS:-all-minilm-l6-v2,all-minilm-l6-v2-q,bge-small-en-v15-q,e5-small-v2-q,bge-small-zh-v15-q}" \
  | tee "$(mkdir -p "$KILN_HOME/kiln-data" && echo "$KILN_HOME/kiln-data")/gpu-bench-$(date -u +%Y%m%dT%H%M%SZ).txt"
