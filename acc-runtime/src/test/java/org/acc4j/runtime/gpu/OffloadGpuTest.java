package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.fixtures.Arguments;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs methods through the runtime on the GPU and compares every output element with the same method run as
 * plain Java on the same random inputs (fixed seeds). Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class OffloadGpuTest {
    private static final int N = 1_000_003;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    /** Runs {@code name} plainly and on the device on copies of {@code args}; asserts every array matches. */
    private static void matches(Object self, String name, Object... args) throws Exception {
        Method m = find(name);
        Method reference = reference(name);
        Object[] plain = Arguments.copy(args);
        Object[] gpu = Arguments.copy(args);
        reference.setAccessible(true);
        reference.invoke(Modifier.isStatic(reference.getModifiers()) ? null : self, plain);
        boolean on = AccRuntime.offload(GpuFixtures.class, name, java.lang.invoke.MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString(), self, gpu);
        assertTrue(on, name + " did not run on the device");
        for (int i = 0; i < args.length; i++) {
            assertSameArray(name + " argument " + i, plain[i], gpu[i]);
        }
    }

    /** The plain-Java reference: {@code <name>Reference} where the kernel calls AccMath's routines, else the kernel. */
    private static Method reference(String name) {
        for (Method m : GpuFixtures.class.getDeclaredMethods()) {
            if (m.getName().equals(name + "Reference")) {
                return m;
            }
        }
        return find(name);
    }

    private static Method find(String name) {
        for (Method m : GpuFixtures.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    static void assertSameArray(String what, Object expected, Object actual) {
        if (expected instanceof double[] e) {
            double[] a = (double[]) actual;
            for (int i = 0; i < e.length; i++) {
                assertEquals(Double.doubleToLongBits(e[i]), Double.doubleToLongBits(a[i]),
                        what + " element " + i + ": " + e[i] + " vs " + a[i]);
            }
        } else if (expected instanceof float[] e) {
            float[] a = (float[]) actual;
            for (int i = 0; i < e.length; i++) {
                assertEquals(Float.floatToIntBits(e[i]), Float.floatToIntBits(a[i]), what + " element " + i);
            }
        } else if (expected instanceof int[] e) {
            assertArrayEquals(e, (int[]) actual, what);
        } else if (expected instanceof long[] e) {
            assertArrayEquals(e, (long[]) actual, what);
        } else {
            assertEquals(expected, actual, what);
        }
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * 10;
        }
        return d;
    }

    private static float[] floats(Random r, int n) {
        float[] d = new float[n];
        for (int i = 0; i < n; i++) {
            d[i] = (float) r.nextGaussian();
        }
        return d;
    }

    private static int[] ints(Random r, int n, boolean noZero) {
        int[] d = new int[n];
        for (int i = 0; i < n; i++) {
            int v = i % 97 == 0 ? (i % 2 == 0 ? Integer.MIN_VALUE : -1) : r.nextInt();
            d[i] = noZero && v == 0 ? 1 : v;
        }
        return d;
    }

    @Test
    void vectorAdd() throws Exception {
        Random r = new Random(1);
        matches(null, "vectorAdd", doubles(r, N), doubles(r, N), new double[N], N);
    }

    @Test
    void inlinedCallsGiveJavasResult() throws Exception {
        Random r = new Random(21);
        matches(null, "withCalls", new double[N], doubles(r, N), N);
    }

    @Test
    void transcendentalFunctionsGiveTheRoutinesBits() throws Exception {
        Random r = new Random(11);
        double[] x = doubles(r, N);
        for (int i = 0; i < N; i += 5) {
            x[i] *= 700;
        }
        x[1] = 0.0;
        x[2] = Double.NaN;
        x[3] = Double.NEGATIVE_INFINITY;
        matches(null, "transcendental", new double[N], floats(r, N), x, N);
    }

    @Test
    void accRoutinesTakeRankTwoArrays() {
        Random r = new Random(12);
        double[][] a = new double[300][];
        double[][] expected = new double[300][];
        for (int i = 0; i < a.length; i++) {
            a[i] = doubles(r, 517);
            expected[i] = a[i].clone();
        }
        GpuFixtures.scaleRows(expected, 300, 517);
        GpuFixtures.scaleRows(expected, 300, 517);
        Acc.copyin((Object) a);
        assertTrue(Acc.isPresent(a));
        for (int k = 0; k < 2; k++) {
            assertTrue(AccRuntime.offload(GpuFixtures.class, "scaleRows", "([[DII)V", null, new Object[] {a, 300, 517}),
                    "scaleRows did not run on the device");
        }
        Acc.copyout((Object) a);
        for (int i = 0; i < a.length; i++) {
            assertSameArray("row " + i, expected[i], a[i]);
        }
    }

    @Test
    void saxpy() throws Exception {
        Random r = new Random(2);
        matches(null, "saxpy", 1.75f, floats(r, N), floats(r, N), N);
    }

    @Test
    void longArithmeticWithOffsetAndExplicitData() throws Exception {
        Random r = new Random(3);
        long[] b = new long[N];
        for (int i = 0; i < N; i++) {
            b[i] = r.nextLong();
        }
        matches(null, "shifted", new long[N - 10], b, 5, N - 5);
    }

    @Test
    void intArithmeticWrapsAndRoundsAsJava() throws Exception {
        Random r = new Random(4);
        matches(null, "intOps", new int[N], ints(r, N, false), ints(r, N, true), N);
    }

    @Test
    void floatingPointAndConversionsBitForBit() throws Exception {
        Random r = new Random(5);
        double[] x = doubles(r, N);
        float[] y = floats(r, N);
        for (int i = 0; i < N; i += 101) {
            x[i] = Double.NaN;
            y[(i + 7) % N] = Float.NaN;
            x[(i + 13) % N] = 1e300;
        }
        matches(null, "floats", new double[N], x, y, N);
    }

    @Test
    void negativeStep() throws Exception {
        matches(null, "downward", ints(new Random(6), N, false), N);
    }

    @Test
    void sequentialInnerLoop() throws Exception {
        Random r = new Random(7);
        matches(null, "rowSums", new double[1000], doubles(r, 1000 * 517), 1000, 517);
    }

    @Test
    void partialWriteKeepsUnwrittenElements() throws Exception {
        Random r = new Random(8);
        double[] a = doubles(r, N);
        matches(null, "interior", a, doubles(r, N), N);
    }

    @Test
    void instanceAndStaticFields() throws Exception {
        Random r = new Random(9);
        GpuFixtures plain = new GpuFixtures();
        GpuFixtures gpu = new GpuFixtures();
        plain.field = doubles(r, N);
        gpu.field = plain.field.clone();
        GpuFixtures.staticField = floats(r, N);
        find("fields").invoke(plain, N);
        assertTrue(AccRuntime.offload(GpuFixtures.class, "fields", "(I)V", gpu, new Object[] {N}));
        assertSameArray("field", plain.field, gpu.field);
    }

    private static GpuFixtures.Grid grid(Random r, int n, int rows, int cols) {
        double[][] g = new double[rows][];
        for (int i = 0; i < rows; i++) {
            g[i] = doubles(r, cols);
        }
        return new GpuFixtures.Grid(doubles(r, n), g, r.nextDouble());
    }

    private static GpuFixtures.Grid copy(GpuFixtures.Grid g) {
        double[][] rows = new double[g.rows.length][];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = g.rows[i].clone();
        }
        return new GpuFixtures.Grid(g.v.clone(), rows, g.w);
    }

    @Test
    void fieldsOfParametersObjects() {
        Random r = new Random(19);
        GpuFixtures.Grid out = grid(r, N, 300, 701);
        GpuFixtures.Grid a = grid(r, N, 300, 701);
        GpuFixtures.Grid b = grid(r, N, 300, 701);
        GpuFixtures.Grid expected = copy(out);
        GpuFixtures.blendGrids(expected, a, b);
        String desc = "(Lorg/acc4j/runtime/gpu/GpuFixtures$Grid;Lorg/acc4j/runtime/gpu/GpuFixtures$Grid;"
                + "Lorg/acc4j/runtime/gpu/GpuFixtures$Grid;)V";
        assertTrue(AccRuntime.offload(GpuFixtures.class, "blendGrids", desc, null, new Object[] {out, a, b}));
        assertSameArray("out.v", expected.v, out.v);
        for (int i = 0; i < out.rows.length; i++) {
            assertSameArray("out.rows[" + i + "]", expected.rows[i], out.rows[i]);
        }
        // a null parameter whose fields the kernels read: the call is left to plain Java, which throws
        GpuFixtures.Grid untouched = copy(out);
        assertFalse(AccRuntime.offload(GpuFixtures.class, "blendGrids", desc, null, new Object[] {out, a, null}));
        assertSameArray("out.v after the refused call", untouched.v, out.v);
        // the same object as the written one and a read one: reachable twice, the call runs as plain Java
        assertFalse(AccRuntime.offload(GpuFixtures.class, "blendGrids", desc, null, new Object[] {out, out, b}));
    }

    @Test
    void fieldsOfFieldsReadAlongTheirPath() {
        Random r = new Random(31);
        GpuFixtures.Sim s = new GpuFixtures.Sim();
        s.mesh.grid = grid(r, N, 2, 3);
        s.mesh.total = doubles(r, N);
        s.mesh.h = 0.3;
        GpuFixtures.Sim plain = new GpuFixtures.Sim();
        plain.mesh.grid = copy(s.mesh.grid);
        plain.mesh.total = s.mesh.total.clone();
        plain.mesh.h = 0.3;
        double[] expected = new double[N];
        double[] out = new double[N];
        GpuFixtures.smoothMesh(plain, expected);
        String desc = "(Lorg/acc4j/runtime/gpu/GpuFixtures$Sim;[D)V";
        assertTrue(AccRuntime.offload(GpuFixtures.class, "smoothMesh", desc, null, new Object[] {s, out}));
        assertSameArray("out", expected, out);
        assertSameArray("s.mesh.total", plain.mesh.total, s.mesh.total);
        // a null object on the way: the call is left to plain Java
        s.mesh = null;
        assertFalse(AccRuntime.offload(GpuFixtures.class, "smoothMesh", desc, null, new Object[] {s, out}));
    }

    @Test
    void objectsMadeInTheNestRunOnTheDevice() throws Exception {
        int w = 640;
        int h = 480;
        int[] expected = new int[w * h];
        org.acc4j.compiler.fixtures.MadeObjects.mandelbrot(expected, w, h, 500);
        int[] out = new int[w * h];
        assertTrue(AccRuntime.offload(org.acc4j.compiler.fixtures.MadeObjects.class, "mandelbrot", "([IIII)V", null,
                new Object[] {out, w, h, 500}));
        assertSameArray("mandelbrot", expected, out);
        Random r = new Random(37);
        int n = 100_003;
        double[] px = doubles(r, n);
        double[] py = doubles(r, n);
        double[] pz = doubles(r, n);
        double[] plain = new double[2 * n];
        org.acc4j.compiler.fixtures.MadeObjects.vectors(px, py, pz, plain, n);
        double[] gpu = new double[2 * n];
        assertTrue(AccRuntime.offload(org.acc4j.compiler.fixtures.MadeObjects.class, "vectors", "([D[D[D[DI)V", null,
                new Object[] {px, py, pz, gpu, n}));
        assertSameArray("vectors", plain, gpu);
    }

    @Test
    void overridableMethodsRunOnTheDeviceUnlessOverridden() {
        Random r = new Random(23);
        double[] x = doubles(r, N);
        String desc = "([D[DLorg/acc4j/runtime/gpu/GpuFixtures$Waves;)V";
        GpuFixtures.Waves[][] cases = {
            {new GpuFixtures.Waves(), new GpuFixtures.PlainWaves()},
            {new GpuFixtures.PlainWaves(), new GpuFixtures.Waves()},
        };
        for (GpuFixtures.Waves[] c : cases) {
            double[] expected = new double[N];
            c[0].fill(expected, x, c[1]);
            double[] out = new double[N];
            assertTrue(AccRuntime.offload(GpuFixtures.Waves.class, "fill", desc, c[0], new Object[] {out, x, c[1]}),
                    c[0].getClass().getSimpleName() + " with " + c[1].getClass().getSimpleName());
            assertSameArray("fill", expected, out);
        }
        // a receiver whose class declares weight again runs as plain Java (false: the original body runs)
        double[] out = new double[N];
        assertFalse(AccRuntime.offload(GpuFixtures.Waves.class, "fill", desc, new GpuFixtures.OtherWaves(),
                new Object[] {out, x, new GpuFixtures.Waves()}));
        assertFalse(AccRuntime.offload(GpuFixtures.Waves.class, "fill", desc, new GpuFixtures.Waves(),
                new Object[] {out, x, new GpuFixtures.OtherWaves()}));
        assertSameArray("nothing written by a refused call", new double[N], out);
    }

    @Test
    void indirectIncrementsWithNoHintGiveJavasResults() throws Exception {
        Random r = new Random(29);
        int nz = 400_000;
        int rows = 20_000;
        matches(null, "scatterProduct", doubles(r, rows), doubles(r, nz), r.ints(nz, 0, rows).toArray(),
                r.ints(nz, 0, rows).toArray(), doubles(r, rows));
        matches(null, "countInto", new int[1000], new long[8], r.ints(N, 0, 1000).toArray(), N);
        float[] weights = new float[40];
        weights[3] = 1e-40f;
        matches(null, "tallies", doubles(r, 40), weights, doubles(r, N), 0.37f, N);
    }

    @Test
    void outOfBoundsThrowsAndCopiesNothingBack() {
        double[] a = new double[100];
        int[] idx = new int[100];
        for (int i = 0; i < 100; i++) {
            idx[i] = i == 57 ? 100 : i;
        }
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offload(GpuFixtures.class, "outOfBounds", "([D[II)V", null, new Object[] {a, idx, 100}));
        assertEquals("Index 100 out of bounds for length 100", e.getMessage());
        assertArrayEquals(new double[100], a, "nothing may be copied back after a failed kernel");
        assertFalse(Acc.isPresent(a), "the failed region left its data on the device");
        // the next kernel works
        idx[57] = 57;
        assertTrue(AccRuntime.offload(GpuFixtures.class, "outOfBounds", "([D[II)V", null, new Object[] {a, idx, 100}));
        assertEquals(57.0, a[57]);
    }

    @Test
    void divisionByZeroThrowsArithmeticException() {
        int[] y = new int[1000];
        java.util.Arrays.fill(y, 3);
        y[999] = 0;
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> AccRuntime.offload(GpuFixtures.class,
                "divide", "([I[I[II)V", null, new Object[] {new int[1000], new int[1000], y, 1000}));
        assertEquals("/ by zero", e.getMessage());
    }

    @Test
    void unsupportedConstructRunsOnTheHost() {
        assertFalse(AccRuntime.offload(GpuFixtures.class, "unsupported", "([DI)V", null, new Object[] {new double[4], 4}));
    }

    @Test
    void residentDataIsNotCopiedPerCall() throws Exception {
        Random r = new Random(10);
        double[] a = doubles(r, N);
        double[] b = doubles(r, N);
        double[] c = new double[N];
        Acc.copyin(a, b);
        Acc.create(c);
        assertTrue(AccRuntime.offload(GpuFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {a, b, c, N}));
        assertEquals(0.0, c[12345], "c stays on the device until copyout");
        Acc.copyout(c);
        Acc.delete(a, b);
        double[] expected = new double[N];
        GpuFixtures.vectorAdd(a, b, expected, N);
        assertSameArray("c", expected, c);
        assertFalse(Acc.isPresent(a));
    }
}
