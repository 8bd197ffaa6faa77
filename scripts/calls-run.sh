#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh): the per-call, first-call and transfer harnesses, each
# timing raw JCuda and acc4j in one process. Their tables go to $OUT as harness-*.txt, which bench-report puts into
# docs/benchmarks.md when they are in the run folder. The first-call harness runs twice in fresh JVMs over the same
# (initially empty) cache folders: cold, then cached.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-calls}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar"
j() { bash .gpu/on-gpu.sh "$@"; }
echo "== per call"
j -javaagent:.gpu/acc.jar -cp "$cp" org.acc4j.samples.bench.LaunchBench ${LAUNCH_ARGS:-} 2>&1 | tee "$out/harness-launch.txt"
echo "== first call"
caches=$(mktemp -d)
export CUDA_CACHE_PATH="$caches/driver"
for run in cold cached; do
  j -javaagent:.gpu/acc.jar -Dacc4j.cache.dir="$caches/acc4j" -Dacc4j.profile=true -cp "$cp" \
    org.acc4j.samples.bench.FirstCallBench --cubins "$caches/bench" --salt "${SALT:-1}" 2>&1 | tee "$out/harness-first-call-$run.txt"
done
rm -rf "$caches"
echo "== transfers"
j --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp "$cp" org.acc4j.runtime.transfer.TransferBench ${TRANSFER_ARGS:-} 2>&1 | tee "$out/harness-transfers.txt"
