#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-pack.sh here (the device tool carrying .gpu): the irregular GPU tests (edge
# fluxes with atomics, the user's colouring and the runtime's colouring, and the runtime colouring's edge cases), then
# the edge-flux harness with the report on (the strategy, the colour count and the launches): plain Java, atomics, user
# colouring and runtime colouring, with ratios. Logs go to $OUT when it is set.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-colour}
mkdir -p "$out"
cp="$(test_cp)"
echo "== IrregularGpuTest"
timeout "${TEST_TIMEOUT:-150}" bash .gpu/on-gpu.sh -Dacc4j.gpu=true -Dacc4j.agent.jar=.gpu/acc.jar \
  -jar "$junit" execute --class-path "$cp" --include-tag gpu \
  --select-class org.acc4j.samples.IrregularGpuTest --details=tree --disable-banner > "$out/irregular-gpu-tests.log" 2>&1
tail -25 "$out/irregular-gpu-tests.log"
echo "== EdgeFlux ${EDGEFLUX_ARGS:-4194304 20}"
ACC4J_REPORT=1 timeout "${HARNESS_TIMEOUT:-120}" bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar \
  -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.EdgeFlux ${EDGEFLUX_ARGS:-4194304 20} \
  > "$out/edge-flux.log" 2>&1
grep -a "colour\|atomic\|EdgeFlux.java" "$out/edge-flux.log" | grep -av "^acc4j: .*  " | head -20
grep -av "^acc4j: " "$out/edge-flux.log" | tail -20
