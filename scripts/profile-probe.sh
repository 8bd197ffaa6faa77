#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/bench-pack.sh): where a call's time goes with the time profile on.
# LaplacianBench.gpuKernel (default variant, 512x512x64, the first benchmark of its JVM, -f 0) three ways: profile on
# with JMH's stack sampler and the report, profile on with autotuning off, profile off; each iteration's figure kept.
# Logs to $OUT: profile-{on,on-notune,off}.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/acc4j-profile}
mkdir -p "$out"
run() {
  local tag=$1; shift
  echo "== $tag"
  env "$@" timeout "${PROBE_TIMEOUT:-70}" bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -jar .gpu/bench/benchmarks.jar \
    'LaplacianBench\.gpuKernel$' -p size=512x512x64 -p variant=default -f 0 -wi 3 -w 300ms -i 3 -r 300ms \
    ${PROBE_JMH_ARGS:-} >"$out/profile-$tag.log" 2>&1
  grep -a "Iteration\|Bench.gpuKernel \|tried \|timing .* other\|not tuned\|first launch" "$out/profile-$tag.log" \
    | grep -av "^# " | head -40
}
PROBE_JMH_ARGS="-prof stack:lines=4;top=12" run on ACC4J_PROFILE=1 ACC4J_REPORT=1
sed -n '/Stack profiler/,/^Result\|^# Run complete/p' "$out/profile-on.log" | head -120
run on-notune ACC4J_PROFILE=1 ACC4J_AUTOTUNE=off
run off ACC4J_REPORT=1
