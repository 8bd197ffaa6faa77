package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.RowGroupKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.RowGroup;
import org.junit.jupiter.api.Test;

/**
 * Sparse matrix-vector products in compressed row storage ({@link RowGroupKernels}): which run a group of lanes per
 * row and which one thread per row, what the launch chooses, the generated PTX (assembled by ptxas), the kernels in
 * the interpreter against plain Java, and the device's lane order against Java's within the bound of a reordered sum.
 */
class RowGroupsTest {
    /** A random matrix: row lengths 0 to {@code maxLen}, some rows empty, columns anywhere in {@code cols}. */
    static int[][] csr(Random r, int rows, int cols, int maxLen) {
        int[] rowptr = new int[rows + 1];
        for (int i = 0; i < rows; i++) {
            rowptr[i + 1] = rowptr[i] + (r.nextInt(5) == 0 ? 0 : r.nextInt(maxLen + 1));
        }
        int[] col = new int[rowptr[rows]];
        for (int k = 0; k < col.length; k++) {
            col[k] = r.nextInt(cols);
        }
        return new int[][] {rowptr, col};
    }

    private static RowGroup group(CompiledMethod m) {
        for (KernelParam p : m.kernels().get(0).params()) {
            if (p instanceof KernelParam.RowLanes g) {
                return g.group();
            }
        }
        return null;
    }

    private static void assembles(CompiledMethod m) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas == null) {
            return;
        }
        var k = m.kernels().get(0);
        assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        if (k.unchecked() != null) {
            assertNull(Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx()), k.unchecked().entry());
        }
    }

    @Test
    void aDoubleSumKeepsJavasOrderWithoutAClause() throws Exception {
        CompiledMethod m = CompilerTest.offload(RowGroupKernels.class, "spmv");
        assertNull(group(m));
        assertTrue(m.report().stream().anyMatch(l -> l.contains("one thread per row, adding s in Java's order")),
                String.join("\n", m.report()));
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int n = 300;
            int[][] a = csr(r, n, 200, 40);
            double[] val = r.doubles(a[1].length).map(v -> v - 0.5).toArray();
            double[] x = r.doubles(200).toArray();
            double[] plain = new double[n];
            double[] kernel = new double[n];
            RowGroupKernels.spmv(n, a[0], a[1], val, x, plain);
            KernelInterpreter.run(m, new Object[] {n, a[0], a[1], val, x, kernel}, 3);
            assertArrayEquals(plain, kernel, 0.0, "seed " + seed);
        }
    }

    @Test
    void theVectorClauseGivesAGroupOfLanesPerRow() throws Exception {
        CompiledMethod m = CompilerTest.offload(RowGroupKernels.class, "spmvLanes");
        RowGroup g = group(m);
        assertNotNull(g, String.join("\n", m.report()));
        assertEquals(RowGroup.AUTO, g.lanes());
        assertTrue(g.reassociates());
        assertEquals("rowptr", g.offsets().name());
        String ptx = m.kernels().get(0).ptx();
        assertTrue(ptx.contains(".param .u32 p_lanes_log"), ptx);
        assertTrue(ptx.contains("shfl.sync.bfly.b32"), ptx);
        assertTrue(ptx.contains("$L_lane_raise"), ptx);
        assertTrue(m.report().stream().anyMatch(l -> l.contains("a group of lanes per row, sized at each launch")),
                String.join("\n", m.report()));
        assertTrue(m.report().stream().noneMatch(l -> l.contains("loop over k: sequential in each thread")),
                String.join("\n", m.report()));
        assembles(m);
        // the interpreter runs each row in one thread: Java's bits
        Random r = new Random(5);
        int n = 257;
        int[][] a = csr(r, n, 100, 70);
        double[] val = r.doubles(a[1].length).map(v -> v - 0.5).toArray();
        double[] x = r.doubles(100).toArray();
        double[] plain = new double[n];
        double[] kernel = new double[n];
        RowGroupKernels.spmvLanes(n, a[0], a[1], val, x, plain);
        KernelInterpreter.run(m, new Object[] {n, a[0], a[1], val, x, kernel}, 2);
        assertArrayEquals(plain, kernel, 0.0);
    }

    @Test
    void fixedLanesBoundsInLocalsAndASubtraction() throws Exception {
        CompiledMethod m = CompilerTest.offload(RowGroupKernels.class, "spmvFloat8");
        RowGroup g = group(m);
        assertNotNull(g, String.join("\n", m.report()));
        assertEquals(8, g.lanes());
        assembles(m);
        Random r = new Random(9);
        int n = 100;
        int[][] a = csr(r, n, 50, 30);
        float[] val = new float[a[1].length];
        for (int k = 0; k < val.length; k++) {
            val[k] = r.nextFloat() - 0.5f;
        }
        float[] x = new float[50];
        for (int k = 0; k < x.length; k++) {
            x[k] = r.nextFloat();
        }
        float[] plain = new float[n];
        float[] kernel = new float[n];
        for (int k = 0; k < n; k++) {
            plain[k] = kernel[k] = r.nextFloat();
        }
        RowGroupKernels.spmvFloat8(n, a[0], a[1], val, x, plain, 1.5f);
        KernelInterpreter.run(m, new Object[] {n, a[0], a[1], val, x, kernel, 1.5f}, 2);
        assertArrayEquals(plain, kernel, 0f);
    }

    @Test
    void integerSumsTakeLanesWithoutAClauseAndAreExact() throws Exception {
        CompiledMethod m = CompilerTest.offload(RowGroupKernels.class, "spmvLong");
        RowGroup g = group(m);
        assertNotNull(g, String.join("\n", m.report()));
        assertFalse(g.reassociates());
        assembles(m);
        Random r = new Random(13);
        int n = 200;
        int[][] a = csr(r, n, 64, 50);
        long[] val = r.longs(a[1].length).toArray();
        long[] x = r.longs(64).toArray();
        long[] plain = new long[n];
        long[] kernel = new long[n];
        RowGroupKernels.spmvLong(n, a[0], a[1], val, x, plain);
        KernelInterpreter.run(m, new Object[] {n, a[0], a[1], val, x, kernel}, 3);
        assertArrayEquals(plain, kernel);
    }

    @Test
    void otherShapesKeepOneThreadPerRow() {
        assertNull(group(CompilerTest.offload(RowGroupKernels.class, "positiveSums")));
        Diagnostic d = CompilerTest.host(RowGroupKernels.class, "spmvBadVector");
        assertTrue(d.toString().contains("vector = 12 on the loop over a row's elements (lanes per row are a power of "
                + "two up to 32)"), d.toString());
        assertTrue(d.toString().contains("RowGroupKernels.spmvBadVector (RowGroupKernels.java:"), d.toString());
    }

    @Test
    void theLaunchChoosesFromTheMeanRowLengthOfMonotonicOffsets() {
        RowGroup g = group(CompilerTest.offload(RowGroupKernels.class, "spmvLanes"));
        int[] five = new int[101];
        for (int i = 1; i <= 100; i++) {
            five[i] = five[i - 1] + (i % 2 == 0 ? 4 : 6);
        }
        assertTrue(RowGroup.monotonic(five, 0, 100));
        RowGroup.Choice c = g.choose(five, 0, 100, true);
        assertEquals(4, c.lanes());
        assertEquals(2, c.log2());
        assertEquals("4 lanes per row (mean row length 5.0)", c.why());
        int[] one = {0, 1, 2, 2, 3};
        assertEquals(1, g.choose(one, 0, 4, RowGroup.monotonic(one, 0, 4)).lanes());
        int[] long64 = {0, 100, 300};
        assertEquals(32, g.choose(long64, 0, 2, true).lanes());
        int[] bad = {0, 5, 3, 9};
        assertFalse(RowGroup.monotonic(bad, 0, 3));
        RowGroup.Choice b = g.choose(bad, 0, 3, false);
        assertEquals(1, b.lanes());
        assertEquals("the row offsets rowptr are not monotonic over rows 0..3: one thread per row", b.why());
        assertFalse(RowGroup.monotonic(new int[] {-1, 2}, 0, 1));
        assertFalse(RowGroup.monotonic(new int[] {0, 2}, 0, 2));
        // a part of the rows: the mean over that part
        assertEquals(32, g.choose(new int[] {0, 0, 0, 200, 400}, 2, 2, true).lanes());
    }

    @Test
    void theLaneOrderIsWithinTheBoundOfAReorderedSumAndJavasWithOneLane() {
        Random r = new Random(21);
        for (int len : new int[] {0, 1, 2, 5, 31, 32, 33, 100, 1000}) {
            double[] t = r.doubles(len).map(v -> v - 0.5).toArray();
            double java = 0.25;
            double abs = 0.25;
            for (double v : t) {
                java += v;
                abs += Math.abs(v);
            }
            assertEquals(java, RowGroup.laneOrderSum(0.25, t, 1), 0.0);
            for (int lanes = 1; lanes <= 32; lanes *= 2) {
                double got = RowGroup.laneOrderSum(0.25, t, lanes);
                double bound = 2 * (len + lanes) * Math.ulp(1.0) * abs;
                assertTrue(Math.abs(got - java) <= bound, len + " terms, " + lanes + " lanes: " + got + " vs " + java);
            }
        }
        // exact terms: any order gives Java's bits, and -0.0 stays -0.0
        double[] eighths = {0.125, -3.5, 7.25, 1.0, -0.375};
        assertEquals(4.5, RowGroup.laneOrderSum(0.0, eighths, 4), 0.0);
        assertEquals(Double.doubleToRawLongBits(-0.0),
                Double.doubleToRawLongBits(RowGroup.laneOrderSum(-0.0, new double[] {-0.0, -0.0, -0.0}, 8)));
    }
}
