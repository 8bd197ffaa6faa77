#!/usr/bin/env bash
# On the GPU machine, after FUZZ_NESTS=50 scripts/gpu-pack.sh here (the device tool carrying .gpu): the GPU tests of the
# launch path (every runtime GPU test, and the samples' reductions, scans, row groups, rows, tiled and marched kernels
# and the catalogue), then the per-call harness (raw JCuda launch+sync against an acc4j call, one process). Logs go to
# $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-launch}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
echo "== GPU tests of the launch path"
sel=""
for c in ReduceGpuTest ArrayReduceGpuTest ReorderedReduceGpuTest ScanGpuTest IrregularGpuTest RowsGpuTest TilingGpuTest \
  MarchingGpuTest CatalogGpuTest; do
  sel="$sel --select-class org.acc4j.samples.$c"
done
timeout "${TEST_TIMEOUT:-170}" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
  -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path "$cp" --include-tag gpu \
  --select-package org.acc4j.runtime $sel --exclude-classname '.*FaultRecoveryGpuTest' \
  --details=tree --disable-banner > "$out/launch-gpu-tests.log" 2>&1
tail -15 "$out/launch-gpu-tests.log"
grep -a "✘" "$out/launch-gpu-tests.log" | head -20
echo "== per call"
timeout 90 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/lib/annotations.jar" \
  org.acc4j.samples.bench.LaunchBench ${LAUNCH_ARGS:-} 2>&1 | tee "$out/harness-launch.txt"
