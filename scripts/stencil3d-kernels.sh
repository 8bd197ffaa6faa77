#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/bench-pack.sh: acc4j's own kernels for the 3D stencil samples
# under several ACC4J_MARCH shapes, timed beside hand-written CUDA and the device copy in one process
# (scripts/stencil-ptx-time.py: CUDA events, median of 20). For each shape a short JMH run of the three benchmarks'
# gpuKernel (one size, which checks the device's result against plain Java first) dumps the kernels it loads
# (ACC4J_DUMP) into $OUT/ptx/<tag>; the timing script then loads those PTX files as they are.
#
# Settings: STENCIL_SHAPES (space-separated shapes, "default" for none), STENCIL_JMH (JMH options for the dump runs),
# BENCH_JAVA (default: bash .gpu/on-gpu.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-stencil-kernels}
mkdir -p "$out/ptx"
read -r -a java <<<"${BENCH_JAVA:-bash .gpu/on-gpu.sh}"
shapes=${STENCIL_SHAPES:-default points=off points=128x2x1 points=off,once=on,chunk=8,block=64x4}
jmh=${STENCIL_JMH:--wi 0 -i 1 -r 50ms -p size=256x256x256 -p variant=default}
cat .gpu/bench/commit.txt 2>/dev/null | tee "$out/run-info.txt"
args=()
for s in $shapes; do
  tag=$(echo "$s" | tr -c 'a-z0-9\n' '_')
  d="$out/ptx/$tag"
  mkdir -p "$d"
  opts=(-Dacc4j.autotune=off "-Dacc4j.dump=$d")
  [ "$s" != default ] && opts+=("-Dacc4j.march=$s")
  t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 60 "${java[@]}" -javaagent:.gpu/acc.jar "${opts[@]}" -jar .gpu/bench/benchmarks.jar \
    '\.(Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$' -f 0 $jmh >"$out/jmh-$tag.log" 2>&1
  echo "$s: exit $?, $((SECONDS - t0)) s, $(ls "$d" | grep -c 'marched\.ptx$') marched kernels" | tee -a "$out/run-info.txt"
  grep -E 'HOST RUN|Exception|Error|acc4j: ' "$out/jmh-$tag.log" | head -5
  args+=("$tag=$s=$d")
done
OUT="$out" timeout 150 python3 scripts/stencil-ptx-time.py "${args[@]}" 2>&1 | grep -v -i warning | tee "$out/kernels.txt"
