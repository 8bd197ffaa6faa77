#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh): the conformance sweep on the device
# (ConformanceGpuTest: every documented construct and the numerics-style programs against plain Java), then the same
# sweep on the multicore target of that machine's cores (ConformanceMulticoreTest, ACC_DEVICE_TYPE=multicore).
# Logs go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-out}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
junit=".gpu/junit-platform-console-standalone-1.14.4.jar"
echo "== ConformanceGpuTest"
timeout 200 bash .gpu/on-gpu.sh --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar "$junit" execute \
  --class-path "$cp" --include-tag gpu --select-class org.acc4j.samples.conformance.ConformanceGpuTest \
  --details=tree --disable-banner 2>&1 | tee "$out/conformance-gpu.log"
echo "== ConformanceMulticoreTest (ACC_DEVICE_TYPE=multicore)"
ACC_DEVICE_TYPE=multicore timeout 120 bash .gpu/on-gpu.sh --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
  -jar "$junit" execute --class-path "$cp" --select-class org.acc4j.samples.conformance.ConformanceMulticoreTest \
  --details=tree --disable-banner 2>&1 | tee "$out/conformance-multicore.log"
