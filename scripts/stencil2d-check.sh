#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/gpu-pack.sh and scripts/bench-pack.sh, in about 3.5 minutes: the
# two-dimensional marched stencils as the compiler makes them by default against the former default shape, in one
# call: (1) the kernels alone, CUDA events (scripts/stencil-kernels.py: the compiler's Gaussblur.blur and Jacobi.sweep
# kernels, the anchors' Jacobi kernel, CuPy's copy); (2) JMH kernel only (GaussblurBench, JacobiBench and CopyBench
# gpuKernel, default and map2_3, under the defaults and under STENCIL2D_BEFORE); (3) the GPU tests of the 2D marched
# kernels (MarchStepsGpuTest, MarchingGpuTest). Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-stencil2d}
mkdir -p "$out"
before=${STENCIL2D_BEFORE:-chunk2d=16,unroll2d=off,gaps2d=off,hoist2d=off}
jmh=${STENCIL2D_JMH:--wi 1 -i 3 -w 100ms -r 200ms}
echo "== kernels alone (before: $before)"
OUT="$out/kernels" STENCIL_ROUNDS=7 STENCIL_SELECT="${STENCIL2D_SELECT:-^ours|anchors 32x8|^march R(4|8) wconst 128x1|layout.*R(4|8) }" \
  STENCIL_FORMS="default=default before=$before c4=chunk2d=4 c8=chunk2d=8 h0=hoist2d=off u0=unroll2d=off" \
  bash scripts/stencil-kernels.sh 2>&1 | tail -30
# run TAG REGEX [JVM OPTION...] -- [JMH OPTION...]
run() {
  local tag=$1 regex=$2 opts=() args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  echo "== jmh $tag"
  # shellcheck disable=SC2086
  timeout -k 5 70 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -Dacc4j.autotune=off ${opts[@]+"${opts[@]}"} \
    -jar .gpu/bench/benchmarks.jar "$regex" -f 0 $jmh -rf json -rff "$out/jmh-$tag.json" ${args[@]+"${args[@]}"} \
    >"$out/jmh-$tag.log" 2>&1
  echo "$tag: exit $?"
  grep -E '^[A-Z][A-Za-z0-9]*Bench\.|HOST RUN|Exception' "$out/jmh-$tag.log" | tail -8
}
run default '\.(Gaussblur|Jacobi)Bench\.gpuKernel$' -- -p variant=default,map2_3
run copy '\.CopyBench\.gpuKernel$' -- -p variant=1d_naive
run before '\.(Gaussblur|Jacobi)Bench\.gpuKernel$' "-Dacc4j.march=$before" -- -p variant=default
if [ -d .gpu/test-classes ]; then
  echo "== GPU tests"
  tcp=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
  timeout 80 bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path "$tcp" --include-tag gpu \
    --select-class org.acc4j.samples.MarchStepsGpuTest --select-class org.acc4j.samples.MarchingGpuTest \
    --details=tree --disable-banner >"$out/gpu-tests.log" 2>&1
  echo "GPU tests: exit $?"
  grep -E "tests (successful|failed|skipped)|✘" "$out/gpu-tests.log" | head -20
fi
