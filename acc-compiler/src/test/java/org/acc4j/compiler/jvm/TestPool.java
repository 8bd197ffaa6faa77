package org.acc4j.compiler.jvm;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.function.IntConsumer;

/** A small fork/join pool for running generated nests in tests; {@code threads} 1 runs chunks on the caller. */
public final class TestPool implements HostKernels.Pool, AutoCloseable {
    private final int threads;
    private final ForkJoinPool pool;

    public TestPool(int threads) {
        this.threads = threads;
        this.pool = threads > 1 ? new ForkJoinPool(threads) : null;
    }

    @Override
    public int threads() {
        return threads;
    }

    @Override
    public void run(int chunks, IntConsumer chunk) {
        if (pool == null || chunks == 1) {
            for (int c = 0; c < chunks; c++) {
                chunk.accept(c);
            }
            return;
        }
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[chunks];
        for (int c = 0; c < chunks; c++) {
            int k = c;
            tasks[c] = pool.submit(() -> chunk.accept(k));
        }
        for (ForkJoinTask<?> t : tasks) {
            t.join();
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdown();
        }
    }
}
