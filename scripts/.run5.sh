set -u
# Device run B2 of session 4: the pipelined sample after the parallel staging, then the full
# benchmark set with the peers (bench-run.sh), for docs/benchmarks.md.
CP=".gpu/acc.jar:.gpu/test-classes:.gpu/samples.jar:$(ls .gpu/lib/*.jar | tr '\n' ':')"
J="bash .gpu/on-gpu.sh -jar .gpu/junit-platform-console-standalone-1.14.4.jar execute --class-path $CP --include-tag gpu --details=tree --disable-banner"
timeout 90 bash .gpu/on-gpu.sh -javaagent:.gpu/acc.jar -cp .gpu/samples.jar:.gpu/lib/annotations.jar org.acc4j.samples.Pipeline > $OUT/pipeline.log 2>&1; tail -12 $OUT/pipeline.log
mkdir -p $OUT/bench
OUT=$OUT/bench BENCH_BUDGET_S=390 timeout 480 bash scripts/bench-run.sh > $OUT/bench-console.log 2>&1
tail -25 $OUT/bench-console.log
