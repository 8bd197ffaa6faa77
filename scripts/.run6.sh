set -u
# Device run B3 of session 4: the full benchmark set with the peers (bench-run.sh), packed as one archive (the device
# tool brings back only a few files).
rm -rf /tmp/bench && mkdir -p /tmp/bench
OUT=/tmp/bench BENCH_BUDGET_S=400 timeout 540 bash scripts/bench-run.sh > /tmp/bench/bench-console.log 2>&1
tar czf $OUT/bench.tgz -C /tmp bench
tail -30 /tmp/bench/bench-console.log
