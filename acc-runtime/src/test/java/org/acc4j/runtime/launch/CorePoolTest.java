package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * The multicore target's pool: every chunk of a call runs exactly once whatever the thread and chunk counts, its writes
 * are seen by the caller, several callers share the pool, a call from a chunk runs on its thread, and a chunk's
 * exception reaches the caller after the call's other chunks ran.
 */
class CorePoolTest {
    @Test
    void everyChunkRunsOnceOnEveryThreadCount() {
        for (int threads = 1; threads <= 5; threads++) {
            try (CorePool pool = new CorePool(threads, "test")) {
                for (int chunks = 0; chunks <= 70; chunks++) {
                    AtomicIntegerArray runs = new AtomicIntegerArray(chunks);
                    pool.run(chunks, runs::incrementAndGet);
                    for (int c = 0; c < chunks; c++) {
                        assertEquals(1, runs.get(c), "chunk " + c + " of " + chunks + " on " + threads + " threads");
                    }
                }
            }
        }
    }

    @Test
    void theCallerSeesEveryChunksWrites() {
        Random random = new Random(7);
        double[] in = random.doubles(1 << 16).toArray();
        try (CorePool pool = new CorePool(4, "test")) {
            for (int rep = 0; rep < 200; rep++) {
                double[] out = new double[in.length];
                int chunks = 1 + rep % 37;
                pool.run(chunks, c -> {
                    int lo = (int) ((long) c * in.length / chunks);
                    int hi = (int) ((long) (c + 1) * in.length / chunks);
                    for (int i = lo; i < hi; i++) {
                        out[i] = in[i] * 3 + c;
                    }
                });
                double[] expected = new double[in.length];
                for (int c = 0; c < chunks; c++) {
                    for (int i = (int) ((long) c * in.length / chunks); i < (int) ((long) (c + 1) * in.length / chunks); i++) {
                        expected[i] = in[i] * 3 + c;
                    }
                }
                assertArrayEquals(expected, out, "call " + rep + " in " + chunks + " chunks");
            }
        }
    }

    @Test
    void threadsOfTheCallAreTheCallerAndTheWorkers() {
        try (CorePool pool = new CorePool(3, "acc4j-test")) {
            java.util.Set<String> names = ConcurrentHashMap.newKeySet();
            for (int rep = 0; rep < 50; rep++) {
                pool.run(12, c -> names.add(Thread.currentThread().getName()));
            }
            assertTrue(names.contains(Thread.currentThread().getName()), "the caller runs chunks: " + names);
            names.remove(Thread.currentThread().getName());
            assertTrue(names.stream().allMatch(n -> n.startsWith("acc4j-test-")), names.toString());
        }
    }

    @Test
    void concurrentCallersShareThePool() throws Exception {
        try (CorePool pool = new CorePool(3, "test")) {
            int callers = 4;
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            long[] sums = new long[callers];
            for (int t = 0; t < callers; t++) {
                int me = t;
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    for (int rep = 0; rep < 300; rep++) {
                        long[] part = new long[10 + me];
                        pool.run(part.length, c -> part[c] = c + (long) me * 1000);
                        for (long p : part) {
                            sums[me] += p;
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
            start.countDown();
            for (Thread th : threads) {
                th.join(60_000);
            }
            for (int t = 0; t < callers; t++) {
                long n = 10 + t;
                assertEquals(300 * (n * (n - 1) / 2 + n * t * 1000L), sums[t], "caller " + t);
            }
        }
    }

    @Test
    void aCallFromAChunkRunsOnItsThread() {
        try (CorePool pool = new CorePool(3, "test")) {
            AtomicIntegerArray runs = new AtomicIntegerArray(6 * 5);
            pool.run(6, c -> pool.run(5, d -> runs.incrementAndGet(c * 5 + d)));
            for (int i = 0; i < runs.length(); i++) {
                assertEquals(1, runs.get(i), "inner chunk " + i);
            }
        }
    }

    @Test
    void aChunksExceptionReachesTheCallerAfterTheOthersRan() {
        try (CorePool pool = new CorePool(4, "test")) {
            AtomicIntegerArray runs = new AtomicIntegerArray(16);
            IllegalArgumentException thrown = new IllegalArgumentException("chunk 5");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.run(16, c -> {
                runs.incrementAndGet(c);
                if (c == 5) {
                    throw thrown;
                }
            }));
            assertSame(thrown, e);
            for (int c = 0; c < 16; c++) {
                assertEquals(1, runs.get(c), "chunk " + c);
            }
            AtomicIntegerArray again = new AtomicIntegerArray(9);
            pool.run(9, again::incrementAndGet);
            for (int c = 0; c < 9; c++) {
                assertEquals(1, again.get(c), "the pool still runs calls: chunk " + c);
            }
        }
    }

    @Test
    void aClosedPoolRefusesCalls() {
        CorePool pool = new CorePool(2, "test");
        pool.close();
        pool.close();
        assertThrows(IllegalStateException.class, () -> pool.run(4, c -> { }));
    }
}
