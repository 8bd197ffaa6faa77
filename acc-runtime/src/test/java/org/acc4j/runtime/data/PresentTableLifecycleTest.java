package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Weak keys, closing and concurrent use of {@link PresentTable}, on {@link FakeMemory}. */
class PresentTableLifecycleTest {

    private static final long GC_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final FakeMemory memory = new FakeMemory();
    private final PresentTable table = new PresentTable(memory);

    @AfterEach
    void noMisuse() {
        table.close();
        assertEquals(List.of(), memory.violations());
        assertEquals(0, memory.live(), "every buffer freed");
    }

    /** Enters a fresh array dynamically and structurally and forgets it; returns a weak handle. */
    private WeakReference<Object> enterGarbage(PresentTable into, int length) {
        double[] garbage = new double[length];
        into.enterDynamic(garbage, Clause.COPYIN);
        into.enter(garbage, Clause.COPY);
        return new WeakReference<>(garbage);
    }

    /** Runs the GC until {@code ref} is cleared, for at most about five seconds. */
    private static void collect(WeakReference<?> ref) throws InterruptedException {
        long deadline = System.nanoTime() + GC_WAIT_NANOS;
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertNull(ref.get(), "the garbage collector did not reclaim the array within 5 s");
    }

    @Test
    void collectedArraysAreFreedByTheNextCallNotByTheCollector() throws InterruptedException {
        int[] kept = {1, 2};
        table.enterDynamic(kept, Clause.COPYIN);
        WeakReference<Object> first = enterGarbage(table, 1000);
        WeakReference<Object> second = enterGarbage(table, 10);
        assertEquals(3, memory.live());
        collect(first);
        collect(second);
        assertEquals(3, memory.live(), "nothing is freed on the collector's thread");
        // the reference queue may lag behind clearing: drain for up to 5 s more
        int freed = 0;
        long deadline = System.nanoTime() + GC_WAIT_NANOS;
        while (freed < 2 && System.nanoTime() < deadline) {
            freed += table.drainCollected();
            if (freed < 2) {
                System.gc();
                Thread.sleep(10);
            }
        }
        assertEquals(2, freed);
        assertEquals(1, memory.live());
        assertEquals(1, table.size());
        assertTrue(table.isPresent(kept));
        assertEquals(1, table.dynamicCount(kept));
        assertEquals(0, memory.downloads(), "a collected array is never copied back");
        assertEquals(8000L + 80L + 8L, table.transferStats().bytesToDevice());
        assertEquals(2, table.transferStats().frees());
        assertEquals(8L, memory.bytesInUse());
        Reference.reachabilityFence(kept);
    }

    @Test
    void anyTableOperationFreesCollectedArrays() throws InterruptedException {
        WeakReference<Object> ref = enterGarbage(table, 100);
        collect(ref);
        long deadline = System.nanoTime() + GC_WAIT_NANOS;
        // size() drains first, so it reaches 0 once the reference is queued
        while (table.size() != 0 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(0, table.size());
        assertEquals(0, memory.live());
        assertEquals(1, memory.frees());
    }

    @Test
    void releasedArraysAreNotFreedAgainWhenCollected() throws InterruptedException {
        double[] array = new double[64];
        table.enter(array, Clause.COPYIN);
        table.exit(array, Clause.COPYIN);
        WeakReference<Object> ref = new WeakReference<>(array);
        array = null;
        collect(ref);
        Thread.sleep(50);
        assertEquals(0, table.drainCollected());
        assertEquals(1, memory.frees());
        assertEquals(List.of(), memory.violations(), "no double free");
    }

    @Test
    void closeFreesEveryBufferWithoutCopyingBackAndIsIdempotent() {
        int[] a = {1};
        double[] b = {2};
        long[] c = {3};
        table.enter(a, Clause.COPY);
        table.enterDynamic(b, Clause.CREATE);
        table.enterDynamic(c, Clause.COPYIN);
        table.enter(c, Clause.COPYOUT);
        assertEquals(3, memory.live());
        table.close();
        assertEquals(0, memory.live());
        assertEquals(0L, memory.bytesInUse());
        assertEquals(0, memory.downloads());
        assertEquals(3, table.transferStats().frees());
        table.close();
        assertEquals(3, memory.frees(), "second close frees nothing");
        assertEquals(0, table.size());
        assertFalse(table.isPresent(a));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> table.enter(a, Clause.COPYIN));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> table.exitDynamic(c, Clause.COPYOUT, true));
        assertArrayEquals(new int[] {1}, a);
        assertEquals(3, memory.allocations());
    }

    @Test
    void concurrentEnterAndExitKeepCountsConsistent() throws Exception {
        int threads = 16;
        int rounds = 300;
        int[] shared = new int[32];
        table.enterDynamic(shared, Clause.COPYIN);
        int[][] own = new int[threads][8];
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int[] mine = own[t];
                results.add(pool.submit(() -> {
                    start.await();
                    int maxShared = 0;
                    for (int r = 0; r < rounds; r++) {
                        Entry entry = table.enter(shared, Clause.COPYIN);
                        maxShared = Math.max(maxShared, entry.structuredCount());
                        table.enter(mine, Clause.COPY);
                        // play a kernel: add 1 to every element of this thread's array
                        ((FakeMemory.FakeBuffer) table.lookup(mine)).kernel(d -> {
                            int[] x = (int[]) d;
                            for (int i = 0; i < x.length; i++) {
                                x[i]++;
                            }
                        });
                        table.exit(mine, Clause.COPY);
                        table.exit(shared, Clause.COPYIN);
                    }
                    return maxShared;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertTrue(result.get(60, TimeUnit.SECONDS) >= 1);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int[] mine : own) {
            for (int value : mine) {
                assertEquals(rounds, value);
            }
        }
        assertEquals(0, table.structuredCount(shared));
        assertEquals(1, table.dynamicCount(shared));
        assertEquals(1, table.size());
        assertEquals(1, memory.live());
        assertEquals(1 + threads * rounds, memory.uploads(), "the shared array was uploaded once");
        assertEquals(threads * rounds, memory.downloads());
        TransferStats stats = table.transferStats();
        assertEquals(1 + threads * rounds, stats.allocations());
        assertEquals(threads * rounds, stats.frees());
        assertEquals(128L + threads * rounds * 32L, stats.bytesToDevice());
        table.exitDynamic(shared, Clause.DELETE, false);
        assertEquals(0, table.size());
    }

    @Test
    void aCollectedTwoDimensionalArrayReleasesItsRowsButNotRowsUsedElsewhere() throws InterruptedException {
        double[] kept = {1, 2};
        table.enterDynamic(kept, Clause.COPYIN);
        WeakReference<Object> ref = enterGarbageRows(kept);
        assertEquals(1 + 2 + 1, memory.live(), "kept, two more rows and the table");
        assertEquals(1, table.entry(kept).rowReferences());
        collect(ref);
        long deadline = System.nanoTime() + GC_WAIT_NANOS;
        while (table.size() != 1 && System.nanoTime() < deadline) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(1, table.size());
        assertEquals(1, memory.live());
        assertEquals(0, table.entry(kept).rowReferences());
        assertEquals(1, table.dynamicCount(kept));
        assertEquals(0, memory.downloads(), "a collected array is never copied back");
        Reference.reachabilityFence(kept);
    }

    /** Enters a fresh two-dimensional array listing {@code kept} as its middle row, and forgets it. */
    private WeakReference<Object> enterGarbageRows(double[] kept) {
        double[][] garbage = {new double[3], kept, new double[5]};
        table.enter(garbage, Clause.COPY);
        return new WeakReference<>(garbage);
    }

    @Test
    void concurrentTwoDimensionalEntriesShareRowsAndKeepTablesConsistent() throws Exception {
        int threads = 16;
        int rounds = 200;
        // every thread's array lists this row; the region only reads it
        int[] common = {5, 6, 7};
        double[][] shared = new double[4][6];
        table.enterDynamic(shared, Clause.COPYIN);
        int[][][] own = new int[threads][][];
        for (int t = 0; t < threads; t++) {
            own[t] = new int[][] {new int[8], common, new int[t + 1]};
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int[][] mine = own[t];
                results.add(pool.submit(() -> {
                    start.await();
                    int maxCommon = 0;
                    for (int r = 0; r < rounds; r++) {
                        table.enter(shared, Clause.PRESENT);
                        table.enter(mine, Clause.COPY);
                        maxCommon = Math.max(maxCommon, table.entry(common).rowReferences());
                        // the table lists the buffers present now, with the rows' lengths
                        long[] words = ((FakeMemory.FakeBuffer) table.lookup(mine)).words();
                        for (int i = 0; i < mine.length; i++) {
                            assertEquals(table.lookup(mine[i]).address(), words[2 * i]);
                            assertEquals(mine[i].length, words[2 * i + 1]);
                        }
                        // play a kernel: add 1 to every element of this thread's own rows
                        for (int i : new int[] {0, 2}) {
                            ((FakeMemory.FakeBuffer) table.lookup(mine[i])).kernel(d -> {
                                int[] x = (int[]) d;
                                for (int j = 0; j < x.length; j++) {
                                    x[j]++;
                                }
                            });
                        }
                        table.exit(mine, Clause.COPY);
                        table.exit(shared, Clause.PRESENT);
                    }
                    return maxCommon;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertTrue(result.get(60, TimeUnit.SECONDS) >= 1);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int[][] mine : own) {
            for (int i : new int[] {0, 2}) {
                for (int value : mine[i]) {
                    assertEquals(rounds, value);
                }
            }
        }
        assertArrayEquals(new int[] {5, 6, 7}, common);
        assertEquals(0, table.structuredCount(shared));
        assertEquals(1, table.dynamicCount(shared));
        assertEquals(1 + 4, table.size(), "only the dynamically present array and its rows are left");
        assertEquals(1 + 4, memory.live());
        TransferStats stats = table.transferStats();
        assertEquals(stats.allocations() - 5, stats.frees());
        assertEquals(stats.copiesToHost(), memory.downloads());
        table.exitDynamic(shared, Clause.DELETE, false);
        assertEquals(0, table.size());
    }
}
