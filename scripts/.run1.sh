set -u
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
echo "== fault recovery alone"
timeout 120 bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path "$CP" --include-tag gpu --select-class org.acc4j.runtime.FaultRecoveryGpuTest --details=tree --disable-banner > $OUT/fault.log 2>&1; tail -30 $OUT/fault.log
GPU_TESTS_EXTRA="--exclude-classname .*FaultRecoveryGpuTest" SAMPLES="Jacobi Dgemm Transpose" ANCHORS=1 timeout 460 bash scripts/gpu-run.sh > $OUT/all.log 2>&1
cp /tmp/acc4j-out/* $OUT/ 2>/dev/null
grep -E "tests (successful|failed|skipped)|MethodSource|GB/s|TFLOP|ratio" $OUT/all.log | tail -60
