package org.acc4j.compiler.jvm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.fixtures.MulticoreKernels;
import org.acc4j.compiler.ir.ArrayRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Nests the host runs in another loop order ({@link LoopOrder}): every output element against plain Java on random
 * inputs from a fixed seed, on 1 to 5 threads and on sizes from empty up, the run reporting the order it used; a nest
 * that may throw keeps Java's order and throws Java's exception.
 */
class LoopOrderTest {
    private static final List<TestPool> POOLS = List.of(new TestPool(1), new TestPool(2), new TestPool(3),
            new TestPool(5));

    @AfterAll
    static void close() {
        POOLS.forEach(TestPool::close);
    }

    private static CompiledMethod compile(String name) throws Exception {
        Method m = null;
        for (Method x : MulticoreKernels.class.getMethods()) {
            if (x.getName().equals(name)) {
                m = x;
            }
        }
        String resource = MulticoreKernels.class.getName().replace('.', '/') + ".class";
        byte[] bytes = MulticoreKernels.class.getClassLoader().getResourceAsStream(resource).readAllBytes();
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        Compiler.Result r = Compiler.compile(bytes, name, desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new AssertionError(name + " stays on the host: " + h.reason());
        }
        return ((Compiler.Offload) r).method();
    }

    /** Runs {@code args} on {@code pool}; the launches it reported. */
    private static List<HostKernels.Launch> run(HostKernels hk, Object[] args, TestPool pool) {
        List<HostKernels.Launch> launches = new ArrayList<>();
        hk.run(s -> args[((ArrayRef.Parameter) s).index()], args, pool, launches::add);
        return launches;
    }

    @Test
    void aStrideOneOuterLoopRunsInnermost() throws Exception {
        HostKernels hk = HostKernels.of(compile("columns"));
        Random random = new Random(41);
        int[][] sizes = {{3, 0}, {3, 1}, {3, 4}, {4, 2}, {5, 7}, {33, 17}, {130, 9}};
        for (int[] size : sizes) {
            int m = size[0];
            int n = size[1];
            double[] a = random.doubles((long) m * n, -4, 4).toArray();
            double[] start = random.doubles((long) m * n).toArray();
            double[] expected = start.clone();
            MulticoreKernels.columns(a, expected, m, n);
            for (TestPool pool : POOLS) {
                double[] b = start.clone();
                List<HostKernels.Launch> launches = run(hk, new Object[] {a, b, m, n}, pool);
                assertArrayEquals(expected, b, "columns at " + m + "x" + n + " on " + pool.threads() + " threads");
                if (m > 2 && n > 0) {
                    assertEquals("j | i (the vector loop innermost)", launches.get(0).order(), "columns at " + m + "x" + n);
                    assertEquals(n, launches.get(0).trip(), "the chunks cut the new outermost loop");
                }
            }
        }
    }

    @Test
    void theSevenPointStencilRunsWithItsStrideOneLoopInnermost() throws Exception {
        HostKernels hk = HostKernels.of(compile("stencil7"));
        Random random = new Random(43);
        int[][] sizes = {{2, 3, 4}, {3, 3, 3}, {9, 5, 4}, {17, 6, 11}, {32, 8, 9}};
        for (int[] size : sizes) {
            int nx = size[0];
            int ny = size[1];
            int nz = size[2];
            double[] a = random.doubles((long) nx * ny * nz, -2, 2).toArray();
            double[] start = random.doubles((long) nx * ny * nz).toArray();
            double[] expected = start.clone();
            MulticoreKernels.stencil7(a, expected, nx, ny, nz, 0.4, 0.1);
            for (TestPool pool : POOLS) {
                double[] b = start.clone();
                List<HostKernels.Launch> launches = run(hk, new Object[] {a, b, nx, ny, nz, 0.4, 0.1}, pool);
                String where = "stencil7 at " + nx + "x" + ny + "x" + nz + " on " + pool.threads() + " threads";
                assertArrayEquals(expected, b, where);
                if (nx > 2) {
                    assertEquals("j | k | i (the vector loop innermost)", launches.get(0).order(), where);
                }
            }
        }
    }

    @Test
    void aNestThatMayThrowKeepsJavasOrderAndException() throws Exception {
        HostKernels hk = HostKernels.of(compile("columnsDivided"));
        Random random = new Random(47);
        int m = 6;
        int n = 5;
        int[] a = random.ints(m * n, -100, 100).toArray();
        for (TestPool pool : POOLS) {
            int[] b = new int[m * n];
            int[] expected = new int[m * n];
            ArithmeticException java = assertThrows(ArithmeticException.class,
                    () -> MulticoreKernels.columnsDivided(a, expected, m, n));
            ArithmeticException ours = assertThrows(ArithmeticException.class,
                    () -> run(hk, new Object[] {a, b, m, n}, pool));
            assertEquals(java.getMessage(), ours.getMessage());
            assertArrayEquals(new int[m * n], b, "nothing written by a call that threw, on " + pool.threads() + " threads");
        }
        // i - 3 + j is never zero at 3 x 1: the call runs through
        int[] c = random.ints(3, -100, 100).toArray();
        int[] d = new int[3];
        int[] expected = new int[3];
        MulticoreKernels.columnsDivided(c, expected, 3, 1);
        List<HostKernels.Launch> launches = run(hk, new Object[] {c, d, 3, 1}, POOLS.get(2));
        assertArrayEquals(expected, d);
        assertNull(launches.get(0).order(), "a nest that may throw runs in Java's order");
    }

    @Test
    void aMatmulAccumulatesRowsInJavasOrder() throws Exception {
        Random random = new Random(53);
        int[][] sizes = {{0, 3, 2}, {1, 1, 1}, {2, 3, 0}, {3, 5, 7}, {17, 9, 33}, {40, 31, 18}};
        for (String name : new String[] {"matmul", "matmulAdd"}) {
            HostKernels hk = HostKernels.of(compile(name));
            for (int[] size : sizes) {
                int m = size[0];
                int n = size[1];
                int p = size[2];
                // values spread over magnitudes, so that an addition in another order would round differently
                double[] a = random.doubles((long) m * p, -1, 1).map(x -> x * Math.pow(10, random.nextInt(9) - 4))
                        .toArray();
                double[] b = random.doubles((long) p * n, -1, 1).map(x -> x * Math.pow(10, random.nextInt(9) - 4))
                        .toArray();
                double[] start = random.doubles((long) m * n, -3, 3).toArray();
                double[] expected = start.clone();
                if (name.equals("matmul")) {
                    MulticoreKernels.matmul(a, b, expected, m, n, p);
                } else {
                    MulticoreKernels.matmulAdd(a, b, expected, m, n, p);
                }
                for (TestPool pool : POOLS) {
                    double[] c = start.clone();
                    List<HostKernels.Launch> launches = run(hk, new Object[] {a, b, c, m, n, p}, pool);
                    String where = name + " at " + m + "x" + n + "x" + p + " on " + pool.threads() + " threads";
                    for (int e = 0; e < c.length; e++) {
                        assertEquals(Double.doubleToRawLongBits(expected[e]), Double.doubleToRawLongBits(c[e]),
                                where + ", element " + e);
                    }
                    if (m > 0) {
                        assertEquals("i | k | j, a row of c accumulated along k (each element in Java's order)",
                                launches.get(0).order(), where);
                    }
                }
            }
        }
    }
}
