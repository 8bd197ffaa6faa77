#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/bench-pack.sh, in about 2 minutes: the three 3D stencil samples'
# kernels timed by CUDA events in one process (scripts/stencil3d-probe.py): hand CUDA in several structures and
# acc4j's own kernels, dumped (ACC4J_DUMP) by a short JMH run of the benchmarks' gpuKernel per shape (which also
# checks the device's result against plain Java), launched in several blocks and in derived forms of their PTX.
# Then the GPU tests of PROBE_TESTS (default MarchingGpuTest), when the pack holds the test classes.
# Settings: PROBE_SHAPES (TAG:SHAPE ..., SHAPE as ACC4J_MARCH takes it, "default" for none; a tag m_<chunk>_<XxY> is a
# marched shape), PROBE_JMH (JMH options of the dump runs), BENCH_JAVA (default: bash .gpu/on-gpu.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-stencil3d-probe}
mkdir -p "$out/ptx"
read -r -a java <<<"${BENCH_JAVA:-bash .gpu/on-gpu.sh}"
shapes=${PROBE_SHAPES:-default:default noal:align=off m_4_64x4:points=off,once=on,chunk=4,block=64x4}
jmh=${PROBE_JMH:--wi 0 -i 1 -r 50ms -p size=256x256x256 -p variant=default}
cat .gpu/bench/commit.txt 2>/dev/null | tee "$out/run-info.txt"
args=()
for ts in $shapes; do
  tag=${ts%%:*}
  s=${ts#*:}
  d="$out/ptx/$tag"
  mkdir -p "$d"
  opts=(-Dacc4j.autotune=off "-Dacc4j.dump=$d")
  [ "$s" != default ] && opts+=("-Dacc4j.march=$s")
  t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 60 "${java[@]}" -javaagent:.gpu/acc.jar "${opts[@]}" -jar .gpu/bench/benchmarks.jar \
    '\.(Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$' -f 0 $jmh >"$out/jmh-$tag.log" 2>&1
  echo "$tag ($s): exit $?, $((SECONDS - t0)) s, $(ls "$d" | grep -c 'marched\.ptx$') marched kernels" | tee -a "$out/run-info.txt"
  grep -E 'HOST RUN|Exception|Error|acc4j: |^[A-Z][A-Za-z0-9]*Bench\.' "$out/jmh-$tag.log" | head -8
  args+=("$tag=$d")
done
OUT="$out" timeout 150 python3 scripts/stencil3d-probe.py "${args[@]}" 2>&1 | grep -v -i warning | tee "$out/kernels.txt"
# the GPU tests of PROBE_TESTS (default MarchingGpuTest; "" for none), when scripts/gpu-pack.sh packed the test classes
. scripts/common.sh
tests=${PROBE_TESTS-MarchingGpuTest}
if [ -n "$tests" ] && [ -d .gpu/test-classes ]; then
  echo "== GPU tests: $tests"
  sel=$(for c in $tests; do printf -- "--select-class org.acc4j.samples.%s " "$c"; done)
  # shellcheck disable=SC2086
  timeout "${PROBE_TESTS_TIMEOUT:-90}" "${java[@]}" -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$(test_cp)" --include-tag gpu $sel \
    --details=tree --disable-banner >"$out/gpu-tests.log" 2>&1
  echo "GPU tests: exit $?" | tee -a "$out/run-info.txt"
  grep -E "tests (successful|failed|skipped)|✘" "$out/gpu-tests.log" | head -20
fi
# the dumps and logs in one archive (the device returns few files); kernels.txt, run-info.txt, gpu-tests.log beside it
tar czf "$out/probe.tgz" -C "$out" ptx $(cd "$out" && ls jmh-*.log 2>/dev/null) && rm -rf "$out/ptx" "$out"/jmh-*.log
