set -u
# Device run C of session 4: the bounds-check pass alone with longer measurement (10 x 1 s), Jacobi and DGEMM,
# hoisted then checks in the kernel, back to back, and the peers; archived as one file.
rm -rf /tmp/chk && mkdir -p /tmp/chk
OUT=/tmp/chk BENCH=" " BENCH_CHECKED="Jacobi Dgemm" BENCH_JMH_ARGS="-wi 3 -i 10 -r 1s" timeout 400 bash scripts/bench-run.sh > /tmp/chk/console.log 2>&1
tar czf $OUT/checks.tgz -C /tmp chk
grep -aE "gpuKernel|exit" /tmp/chk/console.log | head -20
