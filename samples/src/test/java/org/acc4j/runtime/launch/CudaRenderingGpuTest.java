package org.acc4j.runtime.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.cudac.CudaCRenderer;
import org.acc4j.compiler.cudac.SourceText;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.Module;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.PresentTable;
import org.acc4j.samples.RenderedKernels;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C renderings of sample kernels run on the GPU in place of acc4j's PTX, through the same launcher (same
 * parameters, grid, data clauses and error record): the PTX nvcc made of each rendering is stored under
 * {@code src/test/resources/cuda/} (the GPU machine has no nvcc; {@code CudaRenderingTest} checks it was made from
 * the current rendering). Each result is compared with plain Java and with acc4j's own PTX kernel: bit for bit,
 * reductions included (the rendering combines in the template's order). Skips, saying why, without a device.
 *
 * <p>In the launcher's package to build its {@link OffloadedMethod} from a plan whose kernels are nvcc's.
 */
@Tag("gpu")
class CudaRenderingGpuTest {
    private static Context context;
    private static PresentTable table;
    private static Launcher launcher;
    private static final List<Module> modules = new ArrayList<>();

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        Device d = Device.all().get(0);
        context = Context.open(d);
        table = new PresentTable(new CudaMemory());
        launcher = new Launcher(d, context, table);
    }

    @AfterAll
    static void release() {
        if (launcher == null) {
            return;
        }
        context.makeCurrent();
        for (Module m : modules) {
            m.close();
        }
        launcher.close();
        table.close();
        context.close();
    }

    /** Runs {@code which} with its CUDA C rendering (compiled by nvcc) as its kernels; returns the method's value. */
    private static Object rendered(String which, Object... args) throws Exception {
        RenderedKernels.Method m = RenderedKernels.named(which);
        CompiledMethod c = RenderedKernels.compile(m);
        assertNotNull(c, which + " stays on the host");
        List<KernelPlan> kernels = new ArrayList<>();
        List<Function> functions = new ArrayList<>();
        context.makeCurrent();
        for (KernelPlan k : c.kernels()) {
            CudaCRenderer.Rendering r = CudaCRenderer.render(c.body(), k, SourceText.NONE);
            String stored = RenderedKernels.storedPtx(k.entry());
            assertNotNull(stored, "no stored nvcc PTX for " + k.entry());
            assertTrue(stored.startsWith(RenderedKernels.HEADER + RenderedKernels.sha256(r.source()) + "\n"),
                    k.entry() + ": the stored PTX is not nvcc's output for the current rendering");
            String ptx = stored.substring(stored.indexOf('\n') + 1);
            kernels.add(new KernelPlan(k.region(), k.entry(), ptx, k.params(), r.sites()));
            Module module = Module.load(ptx, k.entry());
            modules.add(module);
            functions.add(module.function(k.entry()));
        }
        CompiledMethod asC = new CompiledMethod(c.body(), kernels, c.data(), c.report(), c.outputs(), c.guards());
        return launcher.run(new OffloadedMethod(which + " (CUDA C)", asC, functions,
                java.util.Collections.nCopies(functions.size(), null), new Sources(m.owner())), null, args);
    }

    /** The method run as plain Java (the test JVM has no agent). */
    private static Object plain(String which, Object... args) throws Exception {
        RenderedKernels.Method m = RenderedKernels.named(which);
        for (Method jm : m.owner().getDeclaredMethods()) {
            if (jm.getName().equals(m.name())) {
                jm.setAccessible(true);
                try {
                    return jm.invoke(null, args);
                } catch (InvocationTargetException e) {
                    throw (Exception) e.getCause();
                }
            }
        }
        throw new IllegalArgumentException(which);
    }

    /** The method run with acc4j's own PTX kernels; returns the method's value. */
    private static Object ptx(String which, Object... args) {
        RenderedKernels.Method m = RenderedKernels.named(which);
        Object[] got = AccRuntime.offloadValue(m.owner(), m.name(), m.descriptor(), null, args);
        assertNotNull(got, which + " did not run on the device");
        return got[0];
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian() * 10;
        }
        return d;
    }

    private static double[][] rows(double[] flat, int m, int n) {
        double[][] out = new double[m][];
        for (int i = 0; i < m; i++) {
            out[i] = Arrays.copyOfRange(flat, i * n, (i + 1) * n);
        }
        return out;
    }

    private static void sameBits(String what, double[] expected, double[] actual) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(Double.doubleToRawLongBits(expected[i]), Double.doubleToRawLongBits(actual[i]),
                    what + " element " + i + ": " + actual[i] + " vs " + expected[i]);
        }
    }

    private static void sameBits(String what, double[][] expected, double[][] actual) {
        for (int i = 0; i < expected.length; i++) {
            sameBits(what + " row " + i, expected[i], actual[i]);
        }
    }

    @Test
    void jacobiFlatAndRows() throws Exception {
        Random r = new Random(61);
        int m = 301;
        int n = 517;
        double[] src = doubles(r, m * n);
        double[] dst0 = doubles(r, m * n);
        double[] java = dst0.clone();
        double[] c = dst0.clone();
        double[] p = dst0.clone();
        plain("Jacobi.sweep", src, java, m, n);
        rendered("Jacobi.sweep", src, c, m, n);
        ptx("Jacobi.sweep", src, p, m, n);
        sameBits("Jacobi.sweep CUDA C vs Java", java, c);
        sameBits("Jacobi.sweep PTX vs Java", java, p);

        double[][] src2 = rows(src, m, n);
        double[][] java2 = rows(dst0, m, n);
        double[][] c2 = rows(dst0, m, n);
        plain("Jacobi.sweep2dMap2_4", src2, java2, m, n);
        rendered("Jacobi.sweep2dMap2_4", src2, c2, m, n);
        sameBits("Jacobi.sweep2dMap2_4 CUDA C vs Java", java2, c2);
    }

    @Test
    void dgemmFlatAndRows() throws Exception {
        Random r = new Random(62);
        int m = 97;
        int n = 131;
        int p = 75;
        double[] a = doubles(r, m * p);
        double[] b = doubles(r, p * n);
        double[] java = new double[m * n];
        double[] c = new double[m * n];
        plain("Dgemm.multiply", a, b, java, m, n, p);
        rendered("Dgemm.multiply", a, b, c, m, n, p);
        sameBits("Dgemm.multiply CUDA C vs Java (needs -fmad=false)", java, c);

        double[][] java2 = new double[m][n];
        double[][] c2 = new double[m][n];
        plain("Dgemm.multiply2dMap2_4", rows(a, m, p), rows(b, p, n), java2, m, n, p);
        rendered("Dgemm.multiply2dMap2_4", rows(a, m, p), rows(b, p, n), c2, m, n, p);
        sameBits("Dgemm.multiply2dMap2_4 CUDA C vs Java", java2, c2);
    }

    @Test
    void laplacianMap3_1() throws Exception {
        Random r = new Random(63);
        int nx = 37;
        int ny = 41;
        int nz = 133;
        double[] a = doubles(r, nx * ny * nz);
        double[] java = new double[a.length];
        double[] c = new double[a.length];
        plain("Laplacian.laplacianMap3_1", a, java, nx, ny, nz, 0.5, -1.25, 2.0);
        rendered("Laplacian.laplacianMap3_1", a, c, nx, ny, nz, 0.5, -1.25, 2.0);
        sameBits("Laplacian.laplacianMap3_1 CUDA C vs Java", java, c);
    }

    @Test
    void reductionsGiveThePtxBitsAndJavasValue() throws Exception {
        Random r = new Random(64);
        for (int n : new int[] {0, 1, 1000, 300_007}) {
            double[] a = doubles(r, n);
            double[] b = doubles(r, n);
            double dot = (Double) rendered("Reduce.dot", a, b, n);
            assertEquals(Double.doubleToRawLongBits((Double) ptx("Reduce.dot", a, b, n)), Double.doubleToRawLongBits(dot),
                    "Reduce.dot n=" + n + ": CUDA C and PTX differ");
            double java = (Double) plain("Reduce.dot", a, b, n);
            double sumAbs = 0;
            for (int i = 0; i < n; i++) {
                sumAbs += Math.abs(a[i] * b[i]);
            }
            double u = Math.ulp(1.0) / 2;
            assertTrue(Math.abs(dot - java) <= 2 * n * u / (1 - 2 * n * u) * sumAbs, "Reduce.dot n=" + n + ": " + dot + " vs " + java);
            assertEquals(plain("Reduce.maxNorm", a, n), rendered("Reduce.maxNorm", a, n), "Reduce.maxNorm n=" + n);

            float[] f = new float[n];
            int[] x = new int[n];
            for (int i = 0; i < n; i++) {
                f[i] = (float) r.nextGaussian();
                x[i] = r.nextInt();
            }
            if (n > 2) {
                f[n / 2] = -0.0f;
            }
            assertEquals(plain("Reduce.minFloat", f, n), rendered("Reduce.minFloat", f, n), "Reduce.minFloat n=" + n);
            assertEquals(plain("Reduce.sumInt", x, n), rendered("Reduce.sumInt", x, n), "Reduce.sumInt n=" + n);
            int rowsCount = Math.max(1, n / 1000);
            int cols = n / rowsCount;
            assertEquals(plain("Reduce.collapsedSum", x, rowsCount, cols), rendered("Reduce.collapsedSum", x, rowsCount, cols),
                    "Reduce.collapsedSum n=" + n);
        }
    }

    /** A bad index stops the CUDA C kernel as it stops the PTX: Java's exception and message, nothing written. */
    @Test
    void outOfBoundsIsJavasException() throws Exception {
        int m = 33;
        int n = 40;
        double[] src = doubles(new Random(65), m * n);
        double[] shortDst = new double[(m - 1) * n - 2];
        Exception java = assertThrows(ArrayIndexOutOfBoundsException.class, () -> plain("Jacobi.sweep", src, shortDst.clone(), m, n));
        double[] c = shortDst.clone();
        Exception rendered = assertThrows(ArrayIndexOutOfBoundsException.class, () -> rendered("Jacobi.sweep", src, c, m, n));
        assertEquals(java.getMessage(), rendered.getMessage());
        sameBits("nothing copied back from a call that threw", shortDst, c);
    }
}
