#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh): the per-call harness (LaunchBench) in RUNS fresh JVMs
# (default 3), each giving the paired overheads of a @Kernels call over a raw launch + sync with their 95 % intervals,
# then once with the runtime's call clock (-Dacc4j.callClock=true: each part of a call, per n) and once counting each
# part's allocated bytes (-Dacc4j.callClock=alloc). With TESTS=1 it ends with the launch path's GPU tests. Every log
# goes to $OUT (launch-<k>.txt, launch-clock.txt, launch-alloc.txt, call-tests.log); the summary goes to stdout.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-call}
mkdir -p "$out"
cp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar"
bench() {
  local log=$1
  shift
  timeout 100 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar "$@" -cp "$cp" org.acc4j.samples.bench.LaunchBench \
    ${LAUNCH_ARGS:-} > "$out/$log" 2>&1
  echo "exit $?"
}
for k in $(seq 1 "${RUNS:-3}"); do
  echo "== run $k (fresh JVM)"
  bench "launch-$k.txt"
  grep -a "^| @Kernels n = \|^runtime overhead\|^allocated per call\|^check\|ran their nest" "$out/launch-$k.txt"
done
echo "== the parts of a call (-Dacc4j.callClock=true)"
bench launch-clock.txt -Dacc4j.callClock=true
sed -n '/^parts of a @Kernels call/,$p' "$out/launch-clock.txt"
echo "== the parts' allocations (-Dacc4j.callClock=alloc)"
bench launch-alloc.txt -Dacc4j.callClock=alloc
sed -n '/^parts of a @Kernels call/,$p' "$out/launch-alloc.txt"
if [ "${TESTS:-0}" = 1 ]; then
  # the launch path's GPU tests: launch sites and their clauses, offloaded calls, mapped launches, async queues,
  # reductions, scans, row groups and rows (TESTS_MORE=0: the first three classes only)
  echo "== launch path's GPU tests"
  tcp="$(test_cp)"
  s=org.acc4j.samples
  r=org.acc4j.runtime.gpu
  classes="$s.sites.SitesGpuTest $s.sites.ClausesGpuTest $r.OffloadGpuTest"
  if [ "${TESTS_MORE:-1}" = 1 ]; then
    classes="$classes $r.MappedLaunchGpuTest $r.AsyncGpuTest $r.NotEqualGpuTest $s.ReduceGpuTest $s.ScanGpuTest"
    classes="$classes $s.IrregularGpuTest $s.RowsGpuTest"
  fi
  sel=""
  for c in $classes; do sel="$sel --select-class $c"; done
  # shellcheck disable=SC2086
  timeout "${LIMIT_TESTS:-120}" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$tcp" --include-tag gpu \
    $sel --details=flat --disable-banner > "$out/call-tests.log" 2>&1
  echo "exit $?"
  grep -a "tests successful\|tests failed\|tests skipped\|tests aborted" "$out/call-tests.log"
  grep -a -A3 "=> .*Error\|=> .*Exception" "$out/call-tests.log" | head -20
fi
