set -u
# Device run D of session 4: the GPU tests (the fault test and the fuzzer apart) after the review's mend.
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
J="bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path $CP --include-tag gpu --details=tree --disable-banner"
timeout 240 $J --select-package org.acc4j.runtime --select-package org.acc4j.samples --exclude-classname '.*FaultRecoveryGpuTest' --exclude-classname '.*FuzzGpuTest' > $OUT/gpu-tests.log 2>&1
grep -aE "tests (successful|failed|skipped)|✘" $OUT/gpu-tests.log | head -40
