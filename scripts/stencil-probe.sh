#!/usr/bin/env bash
# On the GPU machine, from a .gpu/ packed by scripts/bench-pack.sh, in about 4 minutes: the stencil benchmarks'
# resident kernels (GaussblurBench, StencilBench, LaplacianBench, Wave13ptBench, gpuKernel, variant default) under
# the marched kernels' shapes, against the device copy timed in the same call (CuPy's copy of 8192^2 doubles, as
# shared/anchors measures it, and acc4j's own CopyBench kernel). Every JMH setup first checks the device's result
# against plain Java (GpuState), so each row is also a correctness check at the benchmark's size.
#
# Steps, each skipped once the budget is spent (STENCIL_BUDGET_S, default 165 s), in order of priority:
#   1. copy.txt: CuPy copy 8192^2 f64 (median of 20 launches over CUDA events)
#   2. jmh-default: the four benchmarks and CopyBench with every default (autotuning on), Gaussblur's old
#      unmarched mapping map2_3 beside them
#   3. STENCIL_STEPS in order, each "g:<shape>" (jmh-g-<tag>: Gaussblur alone) or "s:<shape>" (jmh-s-<tag>: the three
#      3D stencils) under -Dacc4j.march=<shape> ("default": the built-in shape), autotuning off
#   5. gpu-tests.log: the GPU test classes of STENCIL_TESTS (default MarchingGpuTest; "" for none), at most
#      STENCIL_TESTS_TIMEOUT s (75), when .gpu/ also holds scripts/gpu-pack.sh's test classes
# Settings: STENCIL_JMH ("-wi 1 -i 3 -w 100ms -r 200ms"), STENCIL_STEPS, STENCIL_JVM (more JVM options), BENCH_JAVA (default: bash .gpu/on-gpu.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-stencil}
mkdir -p "$out"
start=$SECONDS
budget=${STENCIL_BUDGET_S:-165}
read -r -a java <<<"${BENCH_JAVA:-bash .gpu/on-gpu.sh}"
read -r -a jvmx <<<"${STENCIL_JVM:-}"
jmh=${STENCIL_JMH:--wi 1 -i 3 -w 100ms -r 200ms}
steps=${STENCIL_STEPS-g:off g:default g:prefetch=on s:default s:prefetch=on g:fixed=off g:chunk2d=32 s:chunk=32 s:block=64x4 g:fixed=off,prefetch=on s:chunk=32,prefetch=on}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  cat .gpu/bench/commit.txt 2>/dev/null
  command -v nvidia-smi >/dev/null && echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "jmh: $jmh"
  echo "steps: $steps"
} | tee "$out/run-info.txt"

left() { echo $((budget - (SECONDS - start))); }

# run TAG REGEX [JVM OPTION...] -- [JMH OPTION...]
run() {
  local tag=$1 regex=$2 opts=() args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  local l
  l=$(left)
  if [ "$l" -lt 15 ]; then
    echo "skipped: $tag (budget spent)" | tee -a "$out/run-info.txt"
    return
  fi
  echo "== $tag (${l} s left)"
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout -k 5 "$l" "${java[@]}" -javaagent:.gpu/acc.jar ${jvmx[@]+"${jvmx[@]}"} ${opts[@]+"${opts[@]}"} \
    -jar .gpu/bench/benchmarks.jar "$regex" -f 0 $jmh -rf json -rff "$out/jmh-$tag.json" ${args[@]+"${args[@]}"} \
    >"$out/jmh-$tag.log" 2>&1
  local rc=$?
  grep -E '^[A-Z][A-Za-z0-9]*Bench\.|^Benchmark |HOST RUN|acc4j: |Exception|Error' "$out/jmh-$tag.log" | tail -20
  echo "$tag: exit $rc, $((SECONDS - t0)) s" | tee -a "$out/run-info.txt"
}

echo "== copy peer"
timeout 60 python3 - <<'EOF' 2>&1 | grep -v -i warning | tee "$out/copy.txt"
import cupy as cp
def bench(fn, reps=20, warm=3):
    for _ in range(warm): fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort(); return ts[len(ts) // 2]
N = 8192; nn = N * N
x = cp.random.rand(nn); y = cp.empty_like(x)
ms = bench(lambda: cp.copyto(y, x))
print(f"copy cupy f64 8192^2 {ms:9.3f} ms {2 * 8 * nn / ms / 1e6:10.1f} GB/s")
EOF

run default '\.(Gaussblur|Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$' -- -p variant=default
run copy '\.CopyBench\.gpuKernel$' -- -p variant=1d_naive
run g-map2_3 '\.GaussblurBench\.gpuKernel$' -- -p variant=map2_3
for step in $steps; do
  kind=${step%%:*}
  s=${step#*:}
  tag="$kind-$(echo "$s" | tr -c 'a-z0-9\n' '_')"
  if [ "$kind" = g ]; then regex='\.GaussblurBench\.gpuKernel$'; else regex='\.(Stencil|Laplacian|Wave13pt)Bench\.gpuKernel$'; fi
  if [ "$s" = default ]; then
    run "$tag" "$regex" -Dacc4j.autotune=off -- -p variant=default
  else
    run "$tag" "$regex" -Dacc4j.autotune=off "-Dacc4j.march=$s" -- -p variant=default
  fi
done

# one table: every row's time and its ratio to the CuPy copy's bandwidth (bytes: one read and one write per point)
python3 - "$out" <<'EOF' | tee "$out/summary.txt"
import json, glob, os, re, sys
out = sys.argv[1]
copy = None
for line in open(os.path.join(out, "copy.txt")):
    m = re.search(r"copy cupy f64 8192\^2\s+([0-9.]+) ms", line)
    if m: copy = float(m.group(1))
def points(bench, size):
    if bench.startswith("Gaussblur"): n = int(size); return (n - 4) * (n - 4)
    if bench.startswith("Copy"): n = int(size); return n * n
    x, y, z = map(int, size.split("x"))
    h = 2 if bench.startswith("Wave") else 1
    return (x - 2 * h) * (y - 2 * h) * (z - 2 * h)
def arrays(bench):
    return 3 if bench.startswith("Wave") else 2  # Wave13pt reads two grids and writes one
print(f"copy (CuPy, 8192^2 f64): {copy} ms" if copy else "copy: not measured")
for f in sorted(glob.glob(os.path.join(out, "jmh-*.json"))):
    tag = os.path.basename(f)[4:-5]
    try: rows = json.load(open(f))
    except Exception: continue
    for r in rows:
        b = r["benchmark"].split(".")[-2]; p = r.get("params", {})
        ms = float(r["primaryMetric"]["score"]); err = float(r["primaryMetric"].get("scoreError", "nan"))
        gbs = arrays(b) * 8 * points(b, p.get("size", "8192")) / ms / 1e6
        ratio = gbs / (2 * 8 * 8192 * 8192 / copy / 1e6) if copy else float("nan")
        print(f"{tag:28s} {b:16s} {p.get('size',''):12s} {p.get('variant',''):10s} {ms:8.3f} ms +- {err:6.3f}  {gbs:7.1f} GB/s  {ratio:5.2f} of copy")
EOF
# the GPU tests of STENCIL_TESTS (default MarchingGpuTest), when scripts/gpu-pack.sh packed the test classes too
tests=${STENCIL_TESTS-MarchingGpuTest}
if [ -n "$tests" ] && [ -d .gpu/test-classes ]; then
  echo "== GPU tests: $tests"
  tcp="$(test_cp)"
  sel=$(for c in $tests; do printf -- "--select-class org.acc4j.samples.%s " "$c"; done)
  # shellcheck disable=SC2086
  timeout "${STENCIL_TESTS_TIMEOUT:-75}" "${java[@]}" -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
    -jar "$junit" execute --class-path "$tcp" --include-tag gpu $sel \
    --details=tree --disable-banner >"$out/gpu-tests.log" 2>&1
  echo "GPU tests: exit $?" | tee -a "$out/run-info.txt"
  grep -E "tests (successful|failed|skipped)|✘" "$out/gpu-tests.log" | head -20
fi
echo "total: $((SECONDS - start)) s" | tee -a "$out/run-info.txt"
