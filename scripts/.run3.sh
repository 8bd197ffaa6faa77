set -u
# Device run A of session 4: the fault test alone, the GPU tests (the fuzzer apart), then 10^4 fuzz nests.
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
J="bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path $CP --include-tag gpu --details=tree --disable-banner"
echo "== fault test alone"
timeout 120 $J --select-class org.acc4j.runtime.FaultRecoveryGpuTest > $OUT/fault.log 2>&1; tail -25 $OUT/fault.log; grep -a "the fault:" $OUT/fault.log
echo "== GPU tests but the fault test and the fuzzer"
timeout 200 $J --select-package org.acc4j.runtime --select-package org.acc4j.samples --exclude-classname '.*FaultRecoveryGpuTest' --exclude-classname '.*FuzzGpuTest' > $OUT/gpu-tests.log 2>&1
grep -aE "tests (successful|failed|skipped)|✘" $OUT/gpu-tests.log | head -40
echo "== fuzz"
ACC4J_FUZZ_NESTS=10000 timeout 330 $J --select-class org.acc4j.samples.FuzzGpuTest > $OUT/fuzz.log 2>&1
grep -aE "fuzz|tests (successful|failed)|FAILED" $OUT/fuzz.log | head -40
