package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.fixtures.MulticoreKernels;
import org.acc4j.compiler.fixtures.NestInputs;
import org.acc4j.compiler.fixtures.Nests;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The multicore backend: nests as JVM bytecode run in chunks on pools of 1 to 5 threads. Results against plain Java
 * bit for bit (the mapping fixtures: 2D arrays, collapse, strides, math); reductions combined in the documented
 * order; exceptions from inside chunks, the first in Java's order, with nothing written.
 */
class MulticoreTest {
    private static final int[] THREADS = {1, 2, 3, 5};
    private static final List<TestPool> POOLS = new ArrayList<>();

    static {
        for (int t : THREADS) {
            POOLS.add(new TestPool(t));
        }
    }

    @AfterAll
    static void close() {
        POOLS.forEach(TestPool::close);
    }

    private static Object run(HostKernels hk, Object[] args, TestPool pool) {
        return hk.run(s -> args[((ArrayRef.Parameter) s).index()], args, pool, null);
    }

    @Test
    void mappingFixturesMatchPlainJavaOnEveryThreadCount() throws Exception {
        for (String name : NestInputs.KERNELS) {
            HostKernels hk = HostKernels.of(CompilerTest.offload(Nests.class, name));
            for (TestPool pool : POOLS) {
                for (long seed = 1; seed <= 2; seed++) {
                    Object[] args = NestInputs.args(name, seed, 2);
                    Object[] plain = NestInputs.copy(args);
                    Method reference = NestInputs.reference(name);
                    reference.invoke(null, plain);
                    run(hk, args, pool);
                    for (int k = 0; k < args.length; k++) {
                        NestInputs.assertDeepEquals(plain[k], args[k], name + " argument " + k + " on "
                                + pool.threads() + " threads");
                    }
                }
            }
        }
    }

    @Test
    void chunksAreFixedByTripAndThreads() {
        assertEquals(1, HostKernels.chunks(1, 16));
        assertEquals(7, HostKernels.chunks(7, 16));
        assertEquals(256, HostKernels.chunks(1_000_000, 16));
        assertEquals(32, HostKernels.chunks(1_000_000, 2));
        assertEquals(3, HostKernels.chunks(5_000_000_000L, 1, 1), "a chunk counts its iterations in an int");
        assertEquals(16, HostKernels.chunks(5_000_000_000L, 1));
        assertEquals(256, HostKernels.chunks(1_000_000, 16, HostKernels.CHUNKS_PER_THREAD), "without a reduction");
        assertEquals(40, HostKernels.chunks(1_000_000, 5, 8), "a pool's own count");
    }

    /**
     * A float sum: each chunk adds its iterations in order from 0, the partials are added chunk 0 first, and the value
     * before the loop last, as the class comment of {@link HostKernels} says; a run's bits depend on the thread count
     * only.
     */
    @Test
    void reductionsCombineChunkPartialsInChunkOrder() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "floatSum"));
        Random r = new Random(17);
        for (int n : new int[] {1, 5, 13, 1000, 100_003}) {
            float[] a = new float[n];
            for (int i = 0; i < n; i++) {
                a[i] = (float) (r.nextGaussian() * Math.pow(10, r.nextInt(8)));
            }
            for (TestPool pool : POOLS) {
                int chunks = HostKernels.chunks(n, pool.threads());
                float total = 0;
                for (int c = 0; c < chunks; c++) {
                    int lo = c * (n / chunks) + Math.min(c, n % chunks);
                    int hi = lo + n / chunks + (c < n % chunks ? 1 : 0);
                    float part = 0;
                    for (int i = lo; i < hi; i++) {
                        part += a[i];
                    }
                    total = c == 0 ? part : total + part;
                }
                float expected = 0f + total;
                for (int run = 0; run < 3; run++) {
                    Object got = run(hk, new Object[] {a, n}, pool);
                    assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits((Float) got),
                            "n " + n + ", " + pool.threads() + " threads: " + got + " against " + expected);
                }
            }
        }
    }

    @Test
    void aMaxReductionIsJavasOnEveryThreadCount() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "maxAbs"));
        double[] a = new Random(3).doubles(10_001, -5, 5).toArray();
        for (TestPool pool : POOLS) {
            assertEquals(MulticoreKernels.maxAbs(a, a.length), (Double) run(hk, new Object[] {a, a.length}, pool));
        }
    }

    @Test
    void theFirstExceptionInJavasOrderIsThrownAndNothingIsWritten() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "gather"));
        int n = 50_000;
        double[] in = new Random(1).doubles(n).toArray();
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = (i * 31) % n;
        }
        idx[n - 2] = n;      // in the last chunk
        idx[n / 3] = -7;     // earlier: Java's exception
        Throwable plainJava = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> MulticoreKernels.gather(new double[n], in, idx, n));
        for (TestPool pool : POOLS) {
            double[] out = new double[n];
            java.util.Arrays.fill(out, 42);
            RuntimeException e = assertThrows(RuntimeException.class, () -> run(hk, new Object[] {out, in, idx, n}, pool));
            assertEquals(plainJava.getClass(), e.getClass());
            assertEquals(plainJava.getMessage(), e.getMessage());
            assertTrue(HostKernels.raisedByKernel(e));
            for (double v : out) {
                assertEquals(42, v, "written before the exception");
            }
        }
        // without a bad index: every element, and the saved buffers are reused
        idx[n - 2] = 0;
        idx[n / 3] = 1;
        double[] plain = new double[n];
        MulticoreKernels.gather(plain, in, idx, n);
        for (TestPool pool : POOLS) {
            for (int k = 0; k < 2; k++) {
                double[] out = new double[n];
                run(hk, new Object[] {out, in, idx, n}, pool);
                assertArrayEquals(plain, out);
            }
        }
    }

    @Test
    void arraysSavedByChunkAndWholeAreBothPutBack() {
        CompiledMethod m = CompilerTest.offload(MulticoreKernels.class, "gatherFrom");
        HostKernels hk = HostKernels.of(m);
        int n = 40_000;
        int lo = 1234;
        double[] in = new Random(4).doubles(n).toArray();
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = (i * 17) % n;
        }
        double[] plainOut = new Random(5).doubles(n).toArray();
        double[] plainSpread = new Random(6).doubles(2 * n).toArray();
        double[] outStart = plainOut.clone();
        double[] spreadStart = plainSpread.clone();
        MulticoreKernels.gatherFrom(plainOut, plainSpread, in, idx, lo, n);
        for (TestPool pool : POOLS) {
            for (int call = 0; call < 2; call++) {
                double[] out = outStart.clone();
                double[] spread = spreadStart.clone();
                run(hk, new Object[] {out, spread, in, idx, lo, n}, pool);
                assertArrayEquals(plainOut, out, "on " + pool.threads() + " threads");
                assertArrayEquals(plainSpread, spread, "on " + pool.threads() + " threads");
            }
        }
        // a bad index in the middle and one in the last chunk: Java's exception, both arrays as they were
        idx[n / 2] = -3;
        idx[n - 1] = n + 5;
        Throwable plainJava = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> MulticoreKernels.gatherFrom(new double[n], new double[2 * n], in, idx, lo, n));
        for (TestPool pool : POOLS) {
            double[] out = outStart.clone();
            double[] spread = spreadStart.clone();
            RuntimeException e = assertThrows(RuntimeException.class,
                    () -> run(hk, new Object[] {out, spread, in, idx, lo, n}, pool));
            assertEquals(plainJava.getClass(), e.getClass());
            assertEquals(plainJava.getMessage(), e.getMessage());
            assertArrayEquals(outStart, out, "written before the exception on " + pool.threads() + " threads");
            assertArrayEquals(spreadStart, spread, "written before the exception on " + pool.threads() + " threads");
        }
    }

    @Test
    void aDivisionByZeroInsideAChunkIsJavas() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "divide"));
        int n = 10_000;
        int[] a = new Random(2).ints(n).toArray();
        int[] d = new Random(3).ints(n, 1, 100).toArray();
        d[n - 1] = 0;
        for (TestPool pool : POOLS) {
            int[] out = new int[n];
            ArithmeticException e = assertThrows(ArithmeticException.class,
                    () -> run(hk, new Object[] {out, a, d, n}, pool));
            assertEquals("/ by zero", e.getMessage());
            assertTrue(java.util.Arrays.stream(out).allMatch(v -> v == 0));
        }
    }

    @Test
    void atomicsCountEveryUpdate() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "histogram"));
        int[] data = new Random(4).ints(100_000).toArray();
        int[] plain = new int[16];
        MulticoreKernels.histogram(plain, data, data.length);
        for (TestPool pool : POOLS) {
            int[] bins = new int[16];
            run(hk, new Object[] {bins, data, data.length}, pool);
            assertArrayEquals(plain, bins);
        }
    }

    @Test
    void aCollapsedNestOfRowsIsCutAcrossRows() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(MulticoreKernels.class, "scale2d"));
        int rows = 3;
        int cols = 1001;
        double[][] a = new double[rows][];
        for (int i = 0; i < rows; i++) {
            a[i] = new Random(i).doubles(cols).toArray();
        }
        double[][] plain = new double[rows][cols];
        MulticoreKernels.scale2d(a, plain, rows, cols);
        for (TestPool pool : POOLS) {
            double[][] b = new double[rows][cols];
            List<HostKernels.Launch> launches = new ArrayList<>();
            hk.run(s -> new Object[] {a, b, rows, cols}[((ArrayRef.Parameter) s).index()], new Object[] {a, b, rows, cols},
                    pool, launches::add);
            for (int i = 0; i < rows; i++) {
                assertArrayEquals(plain[i], b[i]);
            }
            assertEquals((long) rows * cols, launches.get(0).trip(), "the collapsed loops' iterations are chunked");
            assertEquals(HostKernels.chunks((long) rows * cols, pool.threads(), HostKernels.CHUNKS_PER_THREAD),
                    launches.get(0).chunks(), "a nest without a reduction: " + HostKernels.CHUNKS_PER_THREAD
                    + " chunks per thread");
        }
    }
}
