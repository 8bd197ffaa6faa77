#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh): autotuning of block shapes.
# 1. the autotune GPU test (every call's output against plain Java, the tuning calls' included);
# 2. Jacobi 8192^2 with no hints (JMH gpuKernel, default variant, data resident), in one call and on one machine:
#    autotuning off, on with an empty cache folder (it tunes in the warm-up), on again (the shape from the folder),
#    each in a JVM of its own, the report's tuning lines kept;
# 3. the peers (hand CUDA Jacobi with 32x8 blocks among them), in the same call.
# Logs to $OUT: tune-test.log, jmh-jacobi-{off,on,cached}.log/.json, tune-report-{on,cached}.txt, anchors.log.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-tune}
mkdir -p "$out"
j() { bash .gpu/on-gpu.sh "$@"; }
cache=$(mktemp -d)
echo "== autotune GPU test"
timeout "${TEST_TIMEOUT:-120}" bash .gpu/on-gpu.sh -jar "$junit" execute \
  --class-path "$(test_cp)" \
  --include-tag gpu --select-class org.acc4j.samples.AutotuneGpuTest --details=tree --disable-banner 2>&1 \
  | tee "$out/tune-test.log" | grep -v "^acc4j: .*  " | tail -40
jmh() {
  local tag=$1; shift
  echo "== JMH Jacobi 8192^2 gpuKernel default, $tag"
  env "$@" ACC4J_CACHE_DIR="$cache" ACC4J_REPORT=1 timeout "${JMH_TIMEOUT:-90}" bash .gpu/on-gpu.sh \
    -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar 'JacobiBench\.gpuKernel$' -p variant=default -p size=8192 \
    -f 1 -wi "${WI:-3}" -i "${ITERS:-10}" -w 300ms -r 300ms -rf json -rff "$out/jmh-jacobi-$tag.json" \
    >"$out/jmh-jacobi-$tag.log" 2>&1
  grep -a "tried \|not tuned\|tuned in an earlier run\|timing .* other block shapes" "$out/jmh-jacobi-$tag.log" \
    | tee "$out/tune-report-$tag.txt"
  grep -a "JacobiBench.gpuKernel " "$out/jmh-jacobi-$tag.log" | tail -1
}
jmh off ACC4J_AUTOTUNE=off
jmh on ACC4J_AUTOTUNE=on
jmh cached ACC4J_AUTOTUNE=on
echo "tune cache entries:"; cat "$cache"/tune/*.block 2>/dev/null
echo "== peers"
bash .gpu/anchors/run.sh 2>&1 | tee "$out/anchors.log" | grep -i "jacobi\|copy"
rm -rf "$cache"
