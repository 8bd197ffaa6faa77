package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Random;
import java.util.stream.Stream;
import org.acc4j.Acc;
import org.acc4j.compiler.pass.Tiling;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.PlanReport;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tiled transpose and matmul kernels on the GPU against plain Java, every element bit for bit, at sizes that
 * are not multiples of a tile, single rows and columns, and large ones (many blocks, the grid striding); and a call
 * whose arrays are too short raises Java's exception (the checked kernel runs); the same through launch sites, as
 * the agent runs them. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class TilingGpuTest {
    static Stream<TilingCases.Case> cases() {
        return Stream.concat(TilingCases.transposes(new int[][] {{1, 1}, {1, 5000}, {5000, 1}, {33, 65}, {1000, 3001},
            {4097, 31}, {2048, 2048}}).stream(),
                TilingCases.matmuls(new int[][] {{1, 1, 1}, {1, 300, 7}, {300, 1, 9}, {65, 67, 33}, {64, 64, 16},
                    {500, 300, 701}, {1024, 1024, 1024}}).stream());
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void tiledKernelsMatchPlainJava(TilingCases.Case c) throws Exception {
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Object[] args = c.copy();
        assertTrue(AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, args), c + " did not run on the device");
        TilingSamplesTest.assertSame(plain, args, c + " on the GPU");
    }

    /** Whether {@code name} is a class of the samples themselves, not of their tests. */
    static boolean sample(String name) {
        if (!name.startsWith("org.acc4j.samples.")) {
            return false;
        }
        java.net.URL u = TilingGpuTest.class.getClassLoader().getResource(name.replace('.', '/') + ".class");
        return u != null && !u.toString().contains("test-classes");
    }

    /** The samples' classes rewritten into launch sites as the agent rewrites them, in a loader of their own. */
    static final class Rewritten extends ClassLoader {
        Rewritten() {
            super(TilingGpuTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                // every class of the samples (not of their tests) comes from this loader, rewritten where it has
                // @Kernels methods: they reach each other's package-private members (Dgemm's variants are Jacobi's)
                if (!sample(name)) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    byte[] original = TilingSitesTest.bytes(name.replace('.', '/'));
                    byte[] b;
                    try {
                        b = ClassRewriter.rewrite(original, TilingSitesTest::bytes, AccRuntime::register,
                                Rewriter.RUNTIME, w -> {
                                    throw new AssertionError(w);
                                });
                    } catch (Exception e) {
                        throw new ClassNotFoundException(name, e);
                    }
                    b = b == null ? original : b;
                    c = defineClass(name, b, 0, b.length);
                }
                return c;
            }
        }
    }

    static Stream<TilingCases.Case> siteCases() {
        return Stream.concat(TilingCases.transposes(new int[][] {{33, 65}, {1000, 3001}, {2048, 2048}}).stream(),
                TilingCases.matmuls(new int[][] {{65, 67, 33}, {500, 300, 701}, {1024, 1024, 1024}}).stream());
    }

    /**
     * Through the agent's path: the nest outlined into a launch site (whose device prologue copies the scalar
     * parameters) runs the tiled kernel on the device, and the result is Java's, every element bit for bit.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("siteCases")
    void outlinedNestsRunTiledAndMatchPlainJava(TilingCases.Case c) throws Throwable {
        MethodPlan p = TilingSitesTest.plan(c.owner(), c.name());
        assertTrue(String.join("\n", PlanReport.lines(p)).contains("tiled for shared memory"), c::toString);
        Object[] plain = c.copy();
        c.method().invoke(null, plain);
        Class<?> rewritten = Class.forName(c.owner().getName(), true, new Rewritten());
        Object[] args = c.copy();
        for (Method m : rewritten.getDeclaredMethods()) {
            if (m.getName().equals(c.name())) {
                m.setAccessible(true);
                m.invoke(null, args);
            }
        }
        long[] stats = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(c.owner().getName(), c.name()));
        assertTrue(stats[0] >= 1 && stats[1] == 0, () -> c + ": nests on the device, on the host: "
                + java.util.Arrays.toString(stats));
        TilingSamplesTest.assertSame(plain, args, c + " through its launch site on the GPU");
    }

    /**
     * {@code @Kernels(relaxed = true)}: the FP64 tensor-core kernel in every candidate shape
     * ({@link Tiling.TensorTile}), every element within {@code 2 (p + 1) 2^-53 sum_k |a_ik b_kj|} of plain Java's (see
     * {@link DgemmTensor}), at sizes that are not multiples of any tile, with odd row lengths (pairs not 16-byte
     * aligned: copied element by element) and even ones, a k range shorter than a k tile, one whose tiles of c lie
     * inside the ranges but whose last k tile does not (the steps of {@code affineCopies} for all k tiles but the
     * last), and a large one with the default shape.
     */
    @Test
    void tensorCoreProductsLieWithinTheBound() throws Exception {
        Random r = new Random(154);
        int[][] sizes = {{1, 1, 1}, {65, 67, 33}, {130, 70, 17}, {127, 129, 255}, {3, 200, 5}, {200, 3, 260},
            {500, 300, 701}, {258, 514, 130}, {384, 320, 1000}};
        String before = System.getProperty(Tiling.TensorTile.PROPERTY);
        try {
            for (Tiling.TensorTile tile : Tiling.TensorTile.CANDIDATES) {
                System.setProperty(Tiling.TensorTile.PROPERTY, tile.name());
                Class<?> owner = freshly(DgemmTensor.class);
                for (int[] s : sizes) {
                    tensorProduct(owner, r, s[0], s[1], s[2], tile.name());
                }
                if (tile == Tiling.TensorTile.CANDIDATES.get(0)) {
                    tensorProduct(owner, r, 1024, 1024, 1024, tile.name());
                }
            }
        } finally {
            if (before == null) {
                System.clearProperty(Tiling.TensorTile.PROPERTY);
            } else {
                System.setProperty(Tiling.TensorTile.PROPERTY, before);
            }
        }
    }

    /** {@code DgemmTensor.multiply} of {@code owner} on the device, every element of c checked against the bound. */
    private static void tensorProduct(Class<?> owner, Random r, int m, int n, int p, String tile) {
        double[] a = TilingCases.doubles(r, m * p);
        double[] b = TilingCases.doubles(r, p * n);
        double[] c = new double[m * n];
        java.util.Arrays.fill(c, Double.NaN);
        assertTrue(AccRuntime.offload(owner, "multiply", "([D[D[DIII)V", null, new Object[] {a, b, c, m, n, p}),
                "DgemmTensor.multiply did not run on the device");
        double u = Math.ulp(1.0) / 2;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double plain = 0.0;
                double mag = 0.0;
                for (int k = 0; k < p; k++) {
                    plain += a[i * p + k] * b[k * n + j];
                    mag += Math.abs(a[i * p + k] * b[k * n + j]);
                }
                double got = c[i * n + j];
                double bound = 2 * (p + 1) * u * mag;
                int ii = i;
                int jj = j;
                double pj = plain;
                assertTrue(Math.abs(got - plain) <= bound, () -> "tensor tile " + tile + ", " + m + "x" + n + "x" + p
                        + " element (" + ii + ", " + jj + "): " + got + " against Java's " + pj + ", bound " + bound);
            }
        }
    }

    /**
     * {@code c} defined anew by a loader of its own (the runtime keeps a compiled plan per class, so the new class is
     * compiled under the current settings); every other class comes from the test's loader.
     */
    static Class<?> freshly(Class<?> c) throws ClassNotFoundException {
        ClassLoader parent = TilingGpuTest.class.getClassLoader();
        return new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals(c.getName())) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> k = findLoadedClass(name);
                    if (k == null) {
                        try (java.io.InputStream in = parent.getResourceAsStream(name.replace('.', '/') + ".class")) {
                            byte[] bytes = in.readAllBytes();
                            k = defineClass(name, bytes, 0, bytes.length);
                        } catch (java.io.IOException e) {
                            throw new ClassNotFoundException(name, e);
                        }
                    }
                    return k;
                }
            }
        }.loadClass(c.getName());
    }

    @Test
    void anOutOfBoundsCallRaisesJavasException() throws Exception {
        Random r = new Random(153);
        TilingCases.Case c = new TilingCases.Case(Transpose.class, "transposeNaive",
                new Object[] {TilingCases.doubles(r, 300 * 200), new double[300 * 200 - 1], 300, 200}, "short out");
        String expected;
        try {
            c.method().invoke(null, c.copy());
            throw new AssertionError("plain Java did not throw");
        } catch (InvocationTargetException e) {
            expected = e.getCause().getMessage();
        }
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offload(c.owner(), c.name(), c.descriptor(), null, c.copy()));
        assertEquals(expected, e.getMessage());
    }
}
