#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh): deferred launches. The GPU
# tests of deferral (DeferGpuTest) and of the paths it touches (calls, async queues, threads, resources, the profile,
# launch sites and their clauses, loop regions), then JMH gpuKernel of the 3D stencils (default variant) and of the
# copy kernel with deferred launches on and off (-Dacc4j.defer=off), back to back, then the per-call harness.
# Logs to $OUT: defer-tests.log, paths-tests.log, jmh-defer-{on,off}.{log,json}, jmh-copy-{on,off}.{log,json},
# harness-launch.txt. JMH=0 skips the JMH runs, CALLS=0 the per-call harness.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-defer}
mkdir -p "$out"
echo "== DeferGpuTest"
gpu_tests "${LIMIT_DEFER:-90}" "$out/defer-tests.log" org.acc4j.runtime.DeferGpuTest
if [ "${PATHS:-1}" = 1 ]; then
  r=org.acc4j.runtime.gpu
  echo "== the paths deferral touches"
  gpu_tests "${LIMIT_PATHS:-100}" "$out/paths-tests.log" $r.OffloadGpuTest $r.AsyncGpuTest $r.ThreadsGpuTest \
    $r.ResourcesGpuTest $r.ProfileGpuTest $r.QueueWaitsGpuTest org.acc4j.samples.sites.SitesGpuTest \
    org.acc4j.samples.sites.ClausesGpuTest org.acc4j.samples.sites.LoopRegionsGpuTest
fi
# jmh TAG REGEX JVM-OPTION JMH-OPTION...: one JMH run into TAG.json/.log
jmh() {
  local tag=$1 regex=$2 jvm=$3
  shift 3
  timeout "${LIMIT_JMH:-75}" bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar "$jvm" -jar .gpu/bench/benchmarks.jar "$regex" \
    -f 0 -wi "${WI:-3}" -w 200ms -i "${ITERS:-5}" -r 200ms "$@" ${DEFER_JMH_ARGS:-} -rf json -rff "$out/$tag.json" \
    >"$out/$tag.log" 2>&1
  grep -a "Bench.gpuKernel " "$out/$tag.log" | grep -av "^#"
}
for mode in $([ "${JMH:-1}" = 1 ] && echo on off); do
  echo "== JMH gpuKernel, deferred launches $mode"
  jmh "jmh-defer-$mode" '\.(Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$' -Dacc4j.defer=$mode -p variant=default
  jmh "jmh-copy-$mode" 'CopyBench\.gpuKernel$' -Dacc4j.defer=$mode -p variant=naive
done
[ "${CALLS:-1}" = 1 ] || exit 0
echo "== per call (each call followed by Acc.waitAll)"
timeout "${LIMIT_CALL:-60}" bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar \
  -cp ".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar" org.acc4j.samples.bench.LaunchBench \
  ${LAUNCH_ARGS:---rounds 100} 2>&1 | tee "$out/harness-launch.txt" | grep -a "^|\|each @Kernels\|check"
