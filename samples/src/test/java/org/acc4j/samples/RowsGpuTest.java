package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two-dimensional arrays on the GPU against plain Java, element by element: rectangular arrays (one block, indexed as
 * a flat array) and jagged ones (the row table) of every element type at sizes that are multiples of nothing, rows
 * replaced between calls with and without a data region, rows shared between two arrays or listed twice. Skips,
 * saying why, where there is no device.
 */
@Tag("gpu")
class RowsGpuTest {
    private final Random random = new Random(21);

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static Method method(String name) {
        for (Method m : RowKernels.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** Runs {@code name} on the device with {@code args}, and plainly with copies; compares every element. */
    private void check(String name, Object... args) throws Exception {
        checkPresent(name, new Object[0], args);
    }

    /** {@link #check} where {@code present} stay on the device after the call: they are copied back to compare. */
    private void checkPresent(String name, Object[] present, Object... args) throws Exception {
        Method k = method(name);
        Object[] plain = deepCopy(args);
        k.invoke(null, plain);
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        assertNotNull(AccRuntime.offloadValue(RowKernels.class, name, desc, null, args), name + " ran on the host");
        if (present.length > 0) {
            Acc.updateHost(present);
        }
        for (int a = 0; a < args.length; a++) {
            assertDeepEquals(plain[a], args[a], name + " argument " + a);
        }
    }

    /**
     * {@link #check}, where the runtime may also decline the call (its aliasing check): the body then runs plainly, as
     * the agent runs it; either way every element must be plain Java's.
     */
    private void checkAnywhere(String name, Object... args) throws Exception {
        Method k = method(name);
        Object[] plain = deepCopy(args);
        k.invoke(null, plain);
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        if (AccRuntime.offloadValue(RowKernels.class, name, desc, null, args) == null) {
            k.invoke(null, args);
        }
        for (int a = 0; a < args.length; a++) {
            assertDeepEquals(plain[a], args[a], name + " argument " + a);
        }
    }

    private static Object[] deepCopy(Object[] args) {
        Object[] out = new Object[args.length];
        for (int a = 0; a < args.length; a++) {
            out[a] = args[a] instanceof Object[] rows ? copyRows(rows) : args[a];
        }
        return out;
    }

    /** A copy that keeps which rows are the same object (a row listed twice stays listed twice). */
    private static Object[] copyRows(Object[] rows) {
        Object[] c = (Object[]) Array.newInstance(rows.getClass().getComponentType(), rows.length);
        java.util.IdentityHashMap<Object, Object> made = new java.util.IdentityHashMap<>();
        for (int i = 0; i < rows.length; i++) {
            Object row = rows[i];
            c[i] = made.computeIfAbsent(row, r -> {
                Object x = Array.newInstance(r.getClass().getComponentType(), Array.getLength(r));
                System.arraycopy(r, 0, x, 0, Array.getLength(r));
                return x;
            });
        }
        return c;
    }

    private static void assertDeepEquals(Object expected, Object actual, String what) {
        if (!(expected instanceof Object[] e)) {
            assertEquals(expected, actual, what);
            return;
        }
        Object[] g = (Object[]) actual;
        for (int i = 0; i < e.length; i++) {
            for (int j = 0; j < Array.getLength(e[i]); j++) {
                assertEquals(Array.get(e[i], j), Array.get(g[i], j), what + " element [" + i + "][" + j + "]");
            }
        }
    }

    private double[][] doubles(int m, int n) {
        double[][] a = new double[m][n];
        for (double[] row : a) {
            for (int j = 0; j < n; j++) {
                row[j] = random.nextDouble();
            }
        }
        return a;
    }

    private Object rows(Class<?> element, int m, int n) {
        Object[] a = (Object[]) Array.newInstance(element, m, n);
        for (Object row : a) {
            for (int j = 0; j < n; j++) {
                int v = random.nextInt();
                Object x = element == float.class ? (Object) (float) random.nextGaussian()
                        : element == long.class ? (Object) random.nextLong()
                        : element == short.class ? (Object) (short) v
                        : element == byte.class ? (Object) (byte) v
                        : element == char.class ? (Object) (char) v : (Object) v;
                Array.set(row, j, x);
            }
        }
        return a;
    }

    @Test
    void jacobiTransposeAndDgemmMatchPlainJavaAtOddSizes() throws Exception {
        for (int[] s : new int[][] {{3, 3}, {17, 33}, {130, 257}, {513, 129}}) {
            check("jacobi", doubles(s[0], s[1]), doubles(s[0], s[1]), s[0], s[1]);
            check("transpose", new double[s[1]][s[0]], doubles(s[0], s[1]), s[0], s[1]);
        }
        for (int n : new int[] {1, 31, 97}) {
            check("dgemm", doubles(n, n), doubles(n, n), new double[n][n], n);
        }
    }

    @Test
    void everyElementTypeMatchesPlainJava() throws Exception {
        for (int[] s : new int[][] {{1, 1}, {7, 33}, {129, 65}}) {
            int m = s[0];
            int n = s[1];
            check("floats", rows(float.class, m, n), rows(float.class, m, n), m, n);
            check("ints", rows(int.class, m, n), rows(int.class, m, n), m, n);
            check("longs", rows(long.class, m, n), rows(long.class, m, n), m, n);
            check("shorts", rows(short.class, m, n), rows(short.class, m, n), m, n);
            check("bytes", rows(byte.class, m, n), rows(byte.class, m, n), m, n);
            check("chars", rows(char.class, m, n), rows(char.class, m, n), m, n);
        }
    }

    @Test
    void jaggedArraysMatchPlainJava() throws Exception {
        int m = 77;
        double[][] a = new double[m][];
        double[][] b = new double[m][];
        for (int i = 0; i < m; i++) {
            a[i] = doubles(1, 1 + (i * 37) % 101)[0];
            b[i] = new double[a[i].length];
        }
        check("twice", a, b, m);
    }

    @Test
    void rowsReplacedBetweenCallsAreNeverStale() throws Exception {
        int m = 40;
        int n = 51;
        double[][] a = doubles(m, n);
        double[][] b = doubles(m, n);
        check("twice", a, b, m);
        a[3] = doubles(1, n)[0];
        b[5] = new double[n];
        check("twice", a, b, m);

        // inside a data region: the call finds the replaced rows by identity and moves them
        Acc.copyin(a);
        Acc.copyin(b);
        Object[] present = {b};
        checkPresent("twice", present, a, b, m);
        a[7] = doubles(1, n)[0];
        b[9] = new double[n];
        checkPresent("twice", present, a, b, m);
        a[7][0] = 123;
        Acc.updateDevice(a);
        checkPresent("twice", present, a, b, m);
        Acc.copyout(b);
        Acc.delete(a);
        double[][] expected = HeatRows.copy(b);
        RowKernels.twice(a, expected, m);
        assertDeepEquals(expected, b, "after the region");
    }

    /** A jagged copy of {@code a}: odd rows one element longer (the extra element never read). */
    private static double[][] jagged(double[][] a) {
        double[][] g = new double[a.length][];
        for (int i = 0; i < a.length; i++) {
            g[i] = java.util.Arrays.copyOf(a[i], a[i].length + i % 2);
        }
        return g;
    }

    @Test
    void presentRowsCalledAgainAndAgainMatchPlainJavaAsTheirLayoutChanges() throws Exception {
        // present around the calls: the launches read no row (block or jagged), and take the layout as parameters
        int m = 67;
        int n = 45;
        for (boolean isJagged : new boolean[] {false, true}) {
            double[][] a = doubles(m, n);
            double[][] b = doubles(m, n);
            double[][] t = new double[n][m];
            double[][] sq = doubles(m, m);
            double[][] sq2 = doubles(m, m);
            double[][] prod = new double[m][m];
            if (isJagged) {
                a = jagged(a);
                b = jagged(b);
                sq = jagged(sq);
            }
            Object[] all = {a, b, t, sq, sq2, prod};
            Acc.copyin(all);
            Object[] written = {b, t, prod};
            for (int call = 0; call < 4; call++) {
                checkPresent("jacobi", written, a, b, m, n);
                checkPresent("transpose", written, t, a, m, n);
                checkPresent("dgemm", written, sq, sq2, prod, m);
                if (call == 1) {
                    // replaced on the host: the device follows (a block becomes row by row)
                    a[9] = doubles(1, a[9].length)[0];
                    sq2[0] = doubles(1, m)[0];
                    Acc.updateDevice(a);
                    Acc.updateDevice(sq2);
                } else {
                    // changed in place: copied to the device explicitly, as OpenACC asks
                    a[call + 1][3] = call;
                    Acc.updateDevice(a);
                }
            }
            Acc.delete(all);
        }
    }

    @Test
    void sharedRowsAreReadFromOneDeviceCopy() throws Exception {
        int m = 9;
        int n = 300;
        double[][] a = doubles(m, n);
        double[][] c = doubles(m, n);
        c[2] = a[4];
        c[6] = c[1];
        check("sum", a, c, new double[m][n], m, n);
        Acc.copyin(a);
        check("sum", a, c, new double[m][n], m, n);
        Acc.delete(a);
    }

    @Test
    void writtenOnlyArraysKeepEveryElementTheKernelDoesNotWrite() throws Exception {
        // b is only written, over its interior: nothing is copied in, the interior alone comes back
        for (int[] s : new int[][] {{3, 3}, {5, 700}, {300, 257}, {1030, 9}}) {
            int m = s[0];
            int n = s[1];
            double[][] a = doubles(m, n);
            double[][] b = doubles(m, n);
            check("jacobi", a, b, m, n);
            // rows replaced between calls, on both arrays
            b[m / 2] = doubles(1, n)[0];
            a[m - 1] = doubles(1, n)[0];
            check("jacobi", a, b, m, n);
            // rows shared with a and listed twice (a written row listed twice runs on the host: the same result)
            double[][] c = doubles(m, n);
            c[0] = a[m / 2];
            c[m - 1] = c[m / 2];
            checkAnywhere("jacobi", a, c, m, n);
            check("jacobi", c, doubles(m, n), m, n);
            double[][] d = doubles(m, n);
            d[m - 1] = a[0];
            checkAnywhere("jacobi", a, d, m, n);
            // present around the call: the whole array is on the device, and stays there
            Acc.copyin(new Object[] {b});
            checkPresent("jacobi", new Object[] {b}, a, b, m, n);
            Acc.delete(new Object[] {b});
        }
        // written everywhere: the whole array comes back, and still nothing went in
        check("sum", doubles(40, 33), doubles(40, 33), doubles(40, 33), 40, 33);
        check("dgemm", doubles(300, 300), doubles(300, 300), doubles(300, 300), 300);
    }

    @Test
    void tiledProductsAndTransposesOverBlocksAndJaggedRowsMatchPlainJava() throws Exception {
        // the tiled kernels address a block's rows from its start, and load a jagged array's rows from its table
        for (int n : new int[] {129, 257}) {
            check("dgemm", doubles(n, n), doubles(n, n), new double[n][n], n);
            check("dgemm", jagged(doubles(n, n)), jagged(doubles(n, n)), new double[n][n], n);
            check("transpose", new double[n + 3][n], doubles(n, n + 3), n, n + 3);
            check("transpose", new double[n + 3][n], jagged(doubles(n, n + 3)), n, n + 3);
        }
        // present around the calls: the launch passes the block's start, as a call that moves its data does
        double[][] a = doubles(200, 200);
        double[][] b = doubles(200, 200);
        double[][] c = new double[200][200];
        Object[] all = {a, b, c};
        Acc.copyin(all);
        checkPresent("dgemm", new Object[] {c}, a, b, c, 200);
        Acc.delete(all);
    }

    @Test
    void aKernelThatThrowsCopiesNothingHalfWritten() throws Exception {
        int m = 64;
        int n = 80;
        double[][] a = doubles(m - 3, n);
        double[][] b = doubles(m, n);
        double[][] before = HeatRows.copy(b);
        double[][] plain = HeatRows.copy(b);
        Class<? extends Throwable> javas = null;
        try {
            RowKernels.jacobi(a, plain, m, n);
        } catch (RuntimeException e) {
            javas = e.getClass();
        }
        assertNotNull(javas, "plain Java throws: a has too few rows");
        Method k = method("jacobi");
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        Throwable thrown = null;
        try {
            AccRuntime.offloadValue(RowKernels.class, "jacobi", desc, null, new Object[] {a, b, m, n});
        } catch (RuntimeException e) {
            thrown = e;
        }
        assertNotNull(thrown, "the device call throws too");
        assertEquals(javas, thrown.getClass());
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double v = b[i][j];
                assertTrue(v == before[i][j] || v == plain[i][j], "element [" + i + "][" + j + "]: " + v
                        + " is neither its value before the call nor one Java's loop wrote");
            }
        }
        // the edges, which no iteration writes, are untouched whatever happened
        for (int j = 0; j < n; j++) {
            assertEquals(before[0][j], b[0][j]);
            assertEquals(before[m - 1][j], b[m - 1][j]);
        }
    }

    @Test
    void theHeatSampleMatchesPlainJava() {
        int n = 129;
        double[][] u0 = HeatRows.grid(n, 5);
        for (int steps : new int[] {1, 10, 11}) {
            double[][] pu = HeatRows.copy(u0);
            double[][] pn = HeatRows.copy(u0);
            HeatRows.plain(pu, pn, n, steps, 0.2);
            double[][] au = HeatRows.copy(u0);
            double[][] an = HeatRows.copy(u0);
            // plain swaps its own locals only: compare the grids themselves, whichever name the swaps leave them under
            double[][] firstGrid = au;
            double[][] secondGrid = an;
            for (int s = 0; s < steps; s++) {
                Object[] ran = AccRuntime.offloadValue(HeatRows.class, "step", "([[D[[DID)V", null,
                        new Object[] {au, an, n, 0.2});
                assertNotNull(ran, "the heat step ran on the host");
                double[][] t = au;
                au = an;
                an = t;
            }
            assertEquals(0, HeatRows.differences(pu, firstGrid) + HeatRows.differences(pn, secondGrid), steps + " steps");
        }
    }
}
