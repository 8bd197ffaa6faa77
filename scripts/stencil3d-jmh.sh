#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/bench-pack.sh, in about 1.5 minutes: the 3D stencil benchmarks'
# gpuKernel (StencilBench, LaplacianBench, Wave13ptBench, variant default) in one JVM per size and ACC4J_MARCH
# setting, with the runtime's profile (device time per launch from CUDA events, block tuning as configured), so the
# compiler's kernels are compared as the benchmarks launch them. Each JMH setup checks the device's result against
# plain Java first. Output: jmh-<size>-<tag>.log (JMH and the profile) and summary.txt (each kernel's mean device time).
# Settings: S3_SETTINGS ("tag:setting ...", "default" for none), S3_SIZES, S3_JMH, BENCH_JAVA.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-stencil3d-jmh}
mkdir -p "$out"
read -r -a java <<<"${BENCH_JAVA:-bash .gpu/on-gpu.sh}"
settings=${S3_SETTINGS:-default:default noalign:align=off}
sizes=${S3_SIZES:-512x512x64 256x256x256}
jmh=${S3_JMH:--wi 2 -i 3 -w 200ms -r 300ms}
cat .gpu/bench/commit.txt 2>/dev/null | tee "$out/run-info.txt"
for size in $sizes; do
  for ts in $settings; do
    tag=${ts%%:*}
    s=${ts#*:}
    opts=(-Dacc4j.profile=true)
    [ "$s" != default ] && opts+=("-Dacc4j.march=$s")
    log="$out/jmh-$size-$tag.log"
    # shellcheck disable=SC2086
    timeout 60 "${java[@]}" -javaagent:.gpu/acc.jar "${opts[@]}" -jar .gpu/bench/benchmarks.jar \
      '\.(Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$' -f 0 $jmh -p size="$size" -p variant=default >"$log" 2>&1
    echo "$size $tag ($s): exit $?" | tee -a "$out/run-info.txt"
    {
      echo "== $size $tag ($s)"
      grep -E '^[A-Z][A-Za-z0-9]*Bench\.|HOST RUN|Exception' "$log"
      grep -E -i 'Stencil\.java|Laplacian\.java|Wave13pt\.java|acc_(Stencil|Laplacian|Wave13pt)|block|tuned|tried' "$log" | head -30
    } >>"$out/summary.txt"
  done
done
cat "$out/summary.txt"
