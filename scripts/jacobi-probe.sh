#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh), in about 2 minutes: the
# Jacobi sweep's kernel forms side by side, timed by CUDA events as the peers are (JacobiKernels), the JMH Jacobi
# benchmarks kernel only (flat and double[][], variant default, marched and with marching off; flat map2_3), the
# double[][] forms against flat in interleaved rounds (RowsVsFlat), and the peers (shared/anchors), all in one call.
# Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-jacobi}
mkdir -p "$out"
tcp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:.gpu/lib/annotations.jar"
scp=".gpu/samples.jar:.gpu/lib/annotations.jar"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null | tee "$out/gpu.txt"
echo "== kernel forms (CUDA events)"
timeout 90 bash .gpu/on-gpu.sh -Xmx8g -cp "$tcp" org.acc4j.samples.bench.JacobiKernels ${KERNELS_ARGS:-8192 30} 2>&1 \
  | tee "$out/jacobi-kernels.txt" | tail -16
echo "== JMH kernel only"
timeout 100 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar 'JacobiBench\.gpuKernel(2d)?$' \
  -p variant=default -f 0 -rf json -rff "$out/jmh-jacobi.json" ${JMH_ARGS:-} > "$out/jmh-jacobi.log" 2>&1
timeout 60 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar 'JacobiBench\.gpuKernel$' \
  -p variant=map2_3 -f 0 -rf json -rff "$out/jmh-jacobi-map23.json" ${JMH_ARGS:-} > "$out/jmh-jacobi-map23.log" 2>&1
# the default variant again with marching off: the plain kernels of the same nests
timeout 80 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -Dacc4j.march=off -jar .gpu/bench/benchmarks.jar \
  'JacobiBench\.gpuKernel(2d)?$' -p variant=default -f 0 -rf json -rff "$out/jmh-jacobi-unmarched.json" ${JMH_ARGS:-} \
  > "$out/jmh-jacobi-unmarched.log" 2>&1
for f in jmh-jacobi jmh-jacobi-map23 jmh-jacobi-unmarched; do
  echo "-- $f"; grep -hE '^JacobiBench\.|^Benchmark |HOST RUN|Exception' "$out/$f.log" | head -8
done
echo "== rows against flat"
timeout 90 bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.RowsVsFlat \
  ${ROWS_ARGS:-8192 2048 20 10} 2>&1 | grep -v "^acc4j: .*  " | tee "$out/rows-vs-flat.txt" | tail -7
if [ "${ANCHORS:-1}" = 1 ]; then
  echo "== peers"
  bash .gpu/anchors/run.sh > "$out/anchors.log" 2>&1
  grep -i "jacobi\|copy cupy" "$out/anchors.log"
fi
