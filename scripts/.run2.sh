set -u
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
timeout 100 bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path "$CP" --include-tag gpu --select-class org.acc4j.runtime.FaultRecoveryGpuTest --details=tree --disable-banner > $OUT/fault.log 2>&1
grep -a -A40 "not rebuilt" $OUT/fault.log | head -60
BENCH=Jacobi BENCH_JMH_ARGS="-e serial -e streams" BENCH_BUDGET_S=200 timeout 420 bash scripts/bench-run.sh > $OUT/bench.log 2>&1
tail -5 $OUT/bench.log
grep -E "jacobi|copy cupy" $OUT/anchors.log
timeout 100 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.Jacobi > $OUT/jacobi.log 2>&1; cat $OUT/jacobi.log
