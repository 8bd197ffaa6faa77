#!/usr/bin/env bash
# On the GPU machine, after FUZZ_NESTS=50 scripts/gpu-pack.sh here (the device tool carrying .gpu): the GPU tests of the
# launch path in groups, each in its own JVM and under its own time limit so that every group gives a verdict (the
# runtime's launches, errors, checks, async queues and scalar types; the samples' reductions, scans, row groups, rows
# and launch sites; tiled and marched kernels), then, with PER_CALL=1, the per-call harness. Logs go to $OUT when set.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-launch}
mkdir -p "$out"
cp="$(test_cp)"
group() {
  local name=$1 limit=$2
  shift 2
  local sel=""
  for c in "$@"; do
    sel="$sel --select-class $c"
  done
  echo "== $name: $*"
  timeout "$limit" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$cp" --include-tag gpu $sel \
    --details=flat --disable-banner > "$out/launch-$name.log" 2>&1
  echo "exit $?"
  grep -a "tests successful\|tests failed\|tests skipped\|tests aborted" "$out/launch-$name.log"
  grep -a -A3 "=> .*Error\|=> .*Exception" "$out/launch-$name.log" | head -20
}
r=org.acc4j.runtime.gpu
s=org.acc4j.samples
group runtime "${LIMIT_RUNTIME:-80}" $r.OffloadGpuTest $r.NotEqualGpuTest $r.AsyncGpuTest $r.NarrowGpuTest \
  $r.MappedLaunchGpuTest $r.AtomicsGpuTest $r.HostptrGpuTest
group samples "${LIMIT_SAMPLES:-90}" $s.ReduceGpuTest $s.ScanGpuTest $s.IrregularGpuTest $s.RowsGpuTest \
  $s.sites.SitesGpuTest $s.sites.ClausesGpuTest
group geometry "${LIMIT_GEOMETRY:-60}" $s.TilingGpuTest $s.MarchingGpuTest org.acc4j.runtime.launch.CudaRenderingGpuTest
if [ "${PER_CALL:-0}" = 1 ]; then
  echo "== per call"
  timeout 90 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar" \
    org.acc4j.samples.bench.LaunchBench ${LAUNCH_ARGS:-} 2>&1 | tee "$out/harness-launch.txt"
fi
