set -u
# Device run B1 of session 4: the GPU tests (the fault test and the fuzzer apart: run A ran them), the pipelined
# async sample and the Jacobi sample.
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
J="bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path $CP --include-tag gpu --details=tree --disable-banner"
echo "== GPU tests but the fault test and the fuzzer"
timeout 240 $J --select-package org.acc4j.runtime --select-package org.acc4j.samples --exclude-classname '.*FaultRecoveryGpuTest' --exclude-classname '.*FuzzGpuTest' > $OUT/gpu-tests.log 2>&1
grep -aE "tests (successful|failed|skipped)|✘" $OUT/gpu-tests.log | head -40
grep -aE -A3 "AsyncGpuTest|AccApiGpuTest" $OUT/gpu-tests.log | grep -aE "✔|✘" | head -20
echo "== Pipeline"
timeout 150 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.Pipeline > $OUT/pipeline.log 2>&1; tail -30 $OUT/pipeline.log
echo "== Jacobi"
timeout 100 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.Jacobi > $OUT/jacobi.log 2>&1; tail -15 $OUT/jacobi.log
