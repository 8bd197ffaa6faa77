#!/usr/bin/env bash
# On the GPU machine, after `FUZZ_FIRST=f FUZZ_NESTS=n bash scripts/gpu-pack.sh` here (the device tool carrying .gpu):
# the differential fuzzer's nests f..f+n-1 (default 1..10000; the range must lie in the packed one and start at its
# first seed or a multiple of 50 after it, the nests being packed 50 to a class) through the runtime on the GPU
# against plain Java (FuzzGpuTest), then its
# tally: outcomes by kind and diagnostic, nests per feature, nests per shape (tiling-*, stencil-*) by outcome, where the
# time went, and every failing seed (rerun one on the host: org.acc4j.compiler.fuzz.Fuzz <seed>). FUZZ_THREADS sets the
# test's threads (default: half the cores, at most 8); FUZZ_TIMEOUT the limit in seconds (default 540). The whole log
# goes to $OUT/fuzz.log.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh
out=${OUT:-/tmp/acc4j-fuzz}
mkdir -p "$out"
cp="$(test_cp)"
first=${FUZZ_FIRST:-1}
nests=${FUZZ_NESTS:-10000}
echo "== fuzz: seeds $first..$((first + nests - 1)) (packed: $(cat .gpu/fuzz-nests.txt 2>/dev/null || echo '?'))"
start=$(date +%s)
ACC4J_FUZZ_FIRST=$first ACC4J_FUZZ_NESTS=$nests ACC4J_FUZZ_THREADS=${FUZZ_THREADS:-} timeout "${FUZZ_TIMEOUT:-540}" \
  bash .gpu/on-gpu.sh ${FUZZ_JVM:-} -Dacc4j.gpu=true -jar "$junit" execute \
  --class-path "$cp" --include-tag gpu --select-class org.acc4j.samples.FuzzGpuTest --details=tree --disable-banner \
  > "$out/fuzz.log" 2>&1
rc=$?
echo "exit $rc after $(( $(date +%s) - start )) s$([ $rc = 124 ] && echo ' (timed out)')"
# progress lines (every 1000 nests), then the tally: its first line and the indented lines after it
grep -a "^fuzz (GPU): [0-9]* nests" "$out/fuzz.log" | tail -3
grep -a "^fuzz (GPU) on" "$out/fuzz.log"
awk '/^fuzz \(GPU\), seeds .* in [0-9]+ s:/ {on = 1; print; next} on && /^  / {print; next} on {exit}' "$out/fuzz.log"
grep -a "tests successful\|tests failed\|tests skipped\|tests aborted" "$out/fuzz.log"
grep -a "✘\|AssumptionViolated\|skipped:" "$out/fuzz.log" | head -5
echo "calls the runtime ran on the host, by reason: $(grep -ac 'runs on the host' "$out/fuzz.log")"
grep -a "runs on the host" "$out/fuzz.log" | sed 's/^acc4j: [^ ]* runs on the host for this call: //; s/[0-9]\+/N/g' | sort | uniq -c | sort -rn | head -8
exit $rc
