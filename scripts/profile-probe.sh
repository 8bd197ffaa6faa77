#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/bench-pack.sh): where a call's time goes with the time profile on.
# LaplacianBench.gpuKernel (default variant, 512x512x64, the first benchmark of its JVM, -f 0), each run with empty
# kernel caches (the driver's JIT cache and acc4j's, so that every module is compiled as on a first run): profile on
# with JMH's stack sampler and the report, profile off with the report, profile on with autotuning off; each
# iteration's figure kept. Logs to $OUT: profile-{on,off,on-notune}.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-profile}
mkdir -p "$out"
run() {
  local tag=$1; shift
  local caches
  caches=$(mktemp -d)
  echo "== $tag"
  env CUDA_CACHE_PATH="$caches/driver" ACC4J_CACHE_DIR="$caches/acc4j" "$@" timeout "${PROBE_TIMEOUT:-70}" \
    bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar \
    'LaplacianBench\.gpuKernel$' -p size=512x512x64 -p variant=default -f 0 -wi 3 -w 300ms -i 3 -r 300ms \
    ${PROBE_JMH_ARGS:-} >"$out/profile-$tag.log" 2>&1
  grep -a "Iteration\|Bench.gpuKernel \|tried \|timing .* other\|not tuned\|deferred\|waited for" \
    "$out/profile-$tag.log" | grep -av "^# Warmup:\|^# Measurement:" | head -40
  rm -rf "$caches"
}
PROBE_JMH_ARGS="-prof stack:lines=6;top=10" run on ACC4J_PROFILE=1 ACC4J_REPORT=1
sed -n '/Thread state: RUNNABLE/,/Thread state: TIMED/p' "$out/profile-on.log" | head -70
run off ACC4J_REPORT=1
run on-notune ACC4J_PROFILE=1 ACC4J_AUTOTUNE=off
