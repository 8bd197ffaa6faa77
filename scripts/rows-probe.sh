#!/usr/bin/env bash
# On the GPU machine, from a packed .gpu/ (scripts/gpu-pack.sh and scripts/bench-pack.sh), in about 4 minutes: the
# newcomer's heat equation on double[512][512] with the runtime's profile (copies and kernels of the unchanged
# source), then again under SampleTop (where a call's host time goes besides its copies), the 2D-against-flat
# kernels (RowsVsFlat), and the GPU test classes of ROWS_TESTS. Logs to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-rows}
mkdir -p "$out"
scp=".gpu/samples.jar:.gpu/lib/annotations.jar"
tcp=$(test_cp)
echo "== heat, profiled"
timeout 60 bash .gpu/on-gpu.sh -Xmx8g -javaagent:.gpu/acc.jar -Dacc4j.profile=true -cp "$scp" \
  org.acc4j.samples.HeatRows ${HEAT_ARGS:-512 200 5} 2>&1 | tee "$out/heat.txt" | grep -v "^acc4j: .*  " | tail -30
echo "== heat, sampled"
timeout 90 bash .gpu/on-gpu.sh -Xmx8g -javaagent:.gpu/acc.jar -cp "$tcp" org.acc4j.samples.bench.SampleTop \
  org.acc4j.samples.HeatRows 512 1000 3 2>&1 | grep -v "^acc4j: .*  " > "$out/heat-sampled.txt"
grep "|" "$out/heat-sampled.txt" | tail -4
sed -n '/samples with a frame/,$p' "$out/heat-sampled.txt" | head -90
echo "== rows against flat"
timeout 80 bash .gpu/on-gpu.sh -Xmx16g -javaagent:.gpu/acc.jar -cp "$scp" org.acc4j.samples.RowsVsFlat \
  ${ROWS_ARGS:-8192 2048 10} 2>&1 | grep -v "^acc4j: .*  " | tee "$out/rows-vs-flat.txt" | tail -8
default_tests="org.acc4j.samples.RowsGpuTest org.acc4j.samples.TilingGpuTest org.acc4j.samples.sites.SitesGpuTest \
org.acc4j.samples.sites.ClausesGpuTest org.acc4j.runtime.data.RowTableGpuTest org.acc4j.runtime.transfer.TransferGpuTest \
org.acc4j.samples.sites.LoopRegionsGpuTest"
if [ -n "${ROWS_TESTS-$default_tests}" ]; then
  tests=${ROWS_TESTS-$default_tests}
  echo "== GPU tests: $tests"
  # shellcheck disable=SC2086
  gpu_tests "${ROWS_TESTS_TIMEOUT:-150}" "$out/gpu-tests.log" $tests
fi
