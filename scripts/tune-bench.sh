#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/bench-pack.sh): where tuning block shapes pays. The stencils
# (7-point, Laplacian, 13-point wave, Gaussian blur; JMH gpuKernel, default variant, data resident) with autotuning
# off, then on with an empty cache folder (each kernel tunes in its warm-up), each benchmark in a JVM of its own, in
# one call; the report's tuning lines kept. Then the copy kernel's bandwidth as the ceiling, in the same call.
# Logs to $OUT: jmh-stencils-{off,on}.log/.json, tune-report-stencils.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-tune}
mkdir -p "$out"
cache=$(mktemp -d)
set=${TUNE_BENCH:-Stencil|Laplacian|Wave13pt|Gaussblur}
for mode in off on; do
  echo "== JMH gpuKernel default ($set), autotuning $mode"
  ACC4J_AUTOTUNE=$mode ACC4J_CACHE_DIR="$cache" ACC4J_REPORT=1 timeout "${JMH_TIMEOUT:-110}" bash .gpu/on-gpu.sh \
    -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar "\\.($set)Bench\\.gpuKernel\$" -p variant=default \
    -f 1 -wi "${WI:-3}" -i "${ITERS:-5}" -w 300ms -r 300ms -rf json -rff "$out/jmh-stencils-$mode.json" \
    >"$out/jmh-stencils-$mode.log" 2>&1
  grep -a "Bench.gpuKernel " "$out/jmh-stencils-$mode.log" | grep -av "^#"
done
grep -a "tried \|not tuned\|timing .* other block shapes\|below the" "$out/jmh-stencils-on.log" | sort -u \
  | tee "$out/tune-report-stencils.txt"
echo "== copy kernel (ceiling)"
timeout 60 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar 'CopyBench\.gpuKernel$' \
  -p variant=naive -f 1 -wi 2 -i 5 -w 300ms -r 300ms 2>&1 | grep -a "CopyBench.gpuKernel " | grep -av "^#"
rm -rf "$cache"
