package org.acc4j.runtime.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Sixteen threads on one present table, each mixing every operation (structured and dynamic entries, updates, a
 * "kernel" on the device copy, rank-2 arrays sharing rows with other threads) on its own random data while all
 * share a few arrays; every thread's results are checked against plain Java, and at the end nothing is left. Then
 * eight threads on arrays laid out as blocks, replacing rows while all read one present block.
 */
class PresentTableStressTest {
    private static final int THREADS = 16;
    private static final int ROUNDS = 400;

    @Test
    void sixteenThreadsMixingOperations() throws Exception {
        FakeMemory memory = new FakeMemory();
        PresentTable table = new PresentTable(memory);
        double[] shared = new double[64];
        double[][] sharedRows = {new double[8], new double[8]};
        Random seeds = new Random(101);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long seed = seeds.nextLong();
                done.add(pool.submit(() -> {
                    start.await();
                    worker(table, new Random(seed), shared, sharedRows);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), memory.violations());
        assertFalse(table.isPresent(shared));
        assertEquals(0, table.size());
        assertEquals(0, memory.live());
        assertEquals(0L, memory.bytesInUse());
        assertArrayEquals(new double[64], shared, "shared data is only read");
        table.close();
    }

    @Test
    void eightThreadsOnBlocksWithRowsReplacedWhileOthersReadAPresentBlock() throws Exception {
        FakeMemory memory = new FakeMemory();
        memory.blocks(true);
        PresentTable table = new PresentTable(memory);
        double[][] common = new double[5][8];
        table.enterDynamic(common, Clause.COPYIN);
        Random seeds = new Random(202);
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long seed = seeds.nextLong();
                done.add(pool.submit(() -> {
                    start.await();
                    blockWorker(table, new Random(seed), common);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(table.entry(common).isContiguous(), "nobody changed the common block");
        table.exitDynamic(common, Clause.DELETE, false);
        assertEquals(List.of(), memory.violations());
        assertEquals(0, table.size());
        assertEquals(0, memory.live());
        table.close();
    }

    /**
     * Rounds of: a rectangular array of its own copied in as one block (vouched for: its rows are its own, of one
     * length), a row replaced on the host and updated (no longer vouched for as a block, still its own rows), a
     * "kernel" on each row's device copy, copied out; every element checked. Meanwhile the common block is entered
     * with a present clause and must stay vouched for.
     */
    private static void blockWorker(PresentTable table, Random r, double[][] common) {
        for (int round = 0; round < 200; round++) {
            int m = 1 + r.nextInt(6);
            int n = 1 + r.nextInt(20);
            double scale = r.nextInt(5) - 2;
            double[][] g = new double[m][n];
            for (double[] row : g) {
                for (int j = 0; j < n; j++) {
                    row[j] = r.nextGaussian();
                }
            }
            table.enter(common, Clause.PRESENT);
            assertTrue(table.ownRows(common));
            assertEquals(8, table.leastRowLength(common));
            table.enterDynamic(g, Clause.COPYIN);
            assertTrue(table.ownRows(g), "round " + round);
            assertEquals(n, table.leastRowLength(g));
            if (r.nextBoolean()) {
                int i = r.nextInt(m);
                g[i] = new double[n];
                for (int j = 0; j < n; j++) {
                    g[i][j] = r.nextGaussian();
                }
                assertEquals(-1, table.leastRowLength(g), "a replaced row is seen before the update");
                table.updateDevice(g);
                assertEquals(n, table.leastRowLength(g));
                assertTrue(table.ownRows(g));
            }
            double[][] expected = new double[m][];
            for (int i = 0; i < m; i++) {
                expected[i] = g[i].clone();
                for (int j = 0; j < n; j++) {
                    expected[i][j] = expected[i][j] * scale + 1;
                }
                Buffer b = table.lookup(g[i]);
                double[] device = new double[n];
                b.download(device);
                for (int j = 0; j < n; j++) {
                    device[j] = device[j] * scale + 1;
                }
                b.upload(device);
            }
            table.exitDynamic(g, Clause.COPYOUT, false);
            table.exit(common, Clause.PRESENT);
            for (int i = 0; i < m; i++) {
                assertArrayEquals(expected[i], g[i], "round " + round + " row " + i);
            }
        }
    }

    private static void worker(PresentTable table, Random r, double[] shared, double[][] sharedRows) {
        for (int round = 0; round < ROUNDS; round++) {
            int n = 1 + r.nextInt(40);
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = r.nextGaussian();
            }
            double[] expected = x.clone();
            double scale = r.nextInt(5) - 2;
            for (int i = 0; i < n; i++) {
                expected[i] = expected[i] * scale + 1;
            }
            table.enter(shared, Clause.COPYIN);
            switch (r.nextInt(3)) {
                case 0 -> {
                    // structured copy
                    table.enter(x, Clause.COPY);
                    kernel(table, x, scale);
                    table.exit(x, Clause.COPY);
                }
                case 1 -> {
                    // dynamic copyin, update host, delete
                    table.enterDynamic(x, Clause.COPYIN);
                    table.enter(x, Clause.PRESENT);
                    kernel(table, x, scale);
                    table.exit(x, Clause.PRESENT);
                    table.updateHost(x);
                    table.exitDynamic(x, Clause.DELETE, false);
                }
                default -> {
                    // a rank-2 array whose second row is shared with every thread (read only)
                    double[][] m = {x, sharedRows[r.nextInt(2)]};
                    table.enterDynamic(m, Clause.CREATE);
                    table.updateDevice(m);
                    kernel(table, x, scale);
                    table.exitDynamic(m, Clause.COPYOUT, false);
                }
            }
            table.exit(shared, Clause.COPYIN);
            assertArrayEquals(expected, x, "round " + round);
        }
    }

    /** Plays a kernel on the device copy of {@code x}: {@code x[i] = x[i] * scale + 1}. */
    private static void kernel(PresentTable table, double[] x, double scale) {
        ((FakeMemory.FakeBuffer) table.lookup(x)).kernel(d -> {
            double[] v = (double[]) d;
            for (int i = 0; i < v.length; i++) {
                v[i] = v[i] * scale + 1;
            }
        });
    }
}
