package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Colouring;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The irregular samples on the GPU: {@link SparseRows} with one thread per row (Java's bits) and with a group of
 * lanes per row (exactly the lane order {@link RowGroup#laneOrderSum} computes on the host, for the lanes the launch
 * chooses; one lane, Java's bits, for offsets that are not monotonic), Java's exception from a lane, and
 * {@link EdgeFlux} with atomics, with the user's colouring and with the runtime's colouring within the bound of a
 * reordered sum (the runtime's also on changed maps, no edge, one edge, a cell out of range and too many colours). Skips, saying why, where
 * there is no device.
 */
@Tag("gpu")
class IrregularGpuTest {
    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    private static Object[] offload(Class<?> c, String name, Object... args) {
        Method k = IrregularInterpreterTest.method(c, name);
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        Object[] got = AccRuntime.offloadValue(c, name, desc, null, args);
        assertNotNull(got, name + " did not run on the device");
        return got;
    }

    private static RowGroup group() throws Exception {
        var m = CatalogInterpreterTest.compile(IrregularInterpreterTest.method(SparseRows.class, "multiplyLanes"));
        for (KernelParam p : m.kernels().get(0).params()) {
            if (p instanceof KernelParam.RowLanes g) {
                return g.group();
            }
        }
        throw new AssertionError("no row group");
    }

    @Test
    void sparseRowsOnTheGpu() throws Exception {
        RowGroup g = group();
        for (SparseRows.Matrix a : new SparseRows.Matrix[] {SparseRows.laplacian(300), SparseRows.powerLaw(20000, 9),
            IrregularInterpreterTest.nonMonotonic(5000, 10), SparseRows.powerLaw(1, 11)}) {
            int n = a.rows();
            double[] x = Check.random(new Random(8), n);
            double[] expected = new double[n];
            SparseRows.multiplyPlain(n, a.rowptr(), a.col(), a.val(), x, expected);
            double[] y = new double[n];
            offload(SparseRows.class, "multiplyRows", n, a.rowptr(), a.col(), a.val(), x, y);
            assertTrue(Check.same(a.name() + ", one thread per row", expected, y), a.name());
            int lanes = g.choose(a.rowptr(), 0, n, RowGroup.monotonic(a.rowptr(), 0, n)).lanes();
            double[] model = new double[n];
            for (int r = 0; r < n; r++) {
                int from = a.rowptr()[r];
                int len = Math.max(0, a.rowptr()[r + 1] - from);
                double[] terms = new double[len];
                for (int k = 0; k < len; k++) {
                    terms[k] = a.val()[from + k] * x[a.col()[from + k]];
                }
                model[r] = RowGroup.laneOrderSum(0.0, terms, lanes);
            }
            double[] z = new double[n];
            offload(SparseRows.class, "multiplyLanes", n, a.rowptr(), a.col(), a.val(), x, z);
            assertTrue(Check.same(a.name() + ", " + lanes + " lanes per row", model, z), a.name());
            assertTrue(SparseRows.withinBound(a, x, expected, z), a.name());
        }
    }

    @Test
    void aLaneOutOfBoundsThrowsJavasException() {
        SparseRows.Matrix a = SparseRows.powerLaw(3000, 12);
        int n = a.rows();
        int[] col = a.col().clone();
        col[col.length / 2] = n + 5;
        double[] x = Check.random(new Random(8), n);
        ArrayIndexOutOfBoundsException java = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> SparseRows.multiplyPlain(n, a.rowptr(), col, a.val(), x, new double[n]));
        Method k = IrregularInterpreterTest.method(SparseRows.class, "multiplyLanes");
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        ArrayIndexOutOfBoundsException device = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> AccRuntime.offloadValue(SparseRows.class, "multiplyLanes", desc, null,
                        new Object[] {n, a.rowptr(), col, a.val(), x, new double[n]}));
        assertEquals(java.getMessage(), device.getMessage());
        // the device is still usable, and the next call is right
        double[] expected = new double[n];
        SparseRows.multiplyPlain(n, a.rowptr(), a.col(), a.val(), x, expected);
        double[] y = new double[n];
        offload(SparseRows.class, "multiplyRows", n, a.rowptr(), a.col(), a.val(), x, y);
        assertTrue(Check.same("after the exception", expected, y));
    }

    @Test
    void edgeFluxesOnTheGpu() {
        EdgeFlux.Mesh m = EdgeFlux.generate(301, 207, 6);
        double[] expected = new double[4 * m.cells()];
        EdgeFlux.fluxPlain(m, expected);
        double[] res = new double[4 * m.cells()];
        offload(EdgeFlux.class, "fluxAtomic", m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res);
        assertTrue(EdgeFlux.withinBound("atomics", m, expected, res));
        Colouring col = Colouring.of(m.edges(), m.c1(), m.c2());
        double[] coloured = new double[4 * m.cells()];
        for (int c = 0; c < col.colours(); c++) {
            offload(EdgeFlux.class, "fluxColour", col.start(c), col.end(c), col.order(), m.c1(), m.c2(), m.ex(),
                    m.ey(), m.q(), m.adt(), coloured);
        }
        assertTrue(EdgeFlux.withinBound("colouring", m, expected, coloured));
    }

    private static Object[] runtimeColour(EdgeFlux.Mesh m, int edges, int[] c1, int[] c2, double[] res) {
        Method k = IrregularInterpreterTest.method(EdgeFlux.class, "fluxRuntimeColour");
        String desc = MethodType.methodType(k.getReturnType(), k.getParameterTypes()).toMethodDescriptorString();
        return AccRuntime.offloadValue(EdgeFlux.class, "fluxRuntimeColour", desc, null,
                new Object[] {edges, c1, c2, m.ex(), m.ey(), m.q(), m.adt(), res});
    }

    @Test
    void runtimeColouringOnTheGpu() {
        EdgeFlux.Mesh m = EdgeFlux.generate(301, 207, 6);
        double[] expected = new double[4 * m.cells()];
        EdgeFlux.fluxPlain(m, expected);
        double[] res = new double[4 * m.cells()];
        assertNotNull(runtimeColour(m, m.edges(), m.c1(), m.c2(), res), "did not run on the device");
        assertTrue(EdgeFlux.withinBound("runtime colouring", m, expected, res));
        // the same maps again: the kept colouring, the same sums in the same order
        double[] again = new double[4 * m.cells()];
        assertNotNull(runtimeColour(m, m.edges(), m.c1(), m.c2(), again));
        assertTrue(java.util.Arrays.equals(res, again), "a second call on unchanged maps gives the same bits");
    }

    @Test
    void runtimeColouringSeesChangedMapsAndTheEdgeCases() {
        EdgeFlux.Mesh m = EdgeFlux.generate(64, 48, 9);
        double[] res = new double[4 * m.cells()];
        assertNotNull(runtimeColour(m, m.edges(), m.c1(), m.c2(), res));
        // the edges reversed in place: the colouring must be made again (the old one pairs other cells)
        int[] c1 = m.c1();
        int[] c2 = m.c2();
        for (int i = 0, j = m.edges() - 1; i < j; i++, j--) {
            int t = c1[i];
            c1[i] = c1[j];
            c1[j] = t;
            t = c2[i];
            c2[i] = c2[j];
            c2[j] = t;
        }
        EdgeFlux.Mesh changed = new EdgeFlux.Mesh(m.cells(), m.edges(), c1, c2, m.ex(), m.ey(), m.q(), m.adt());
        double[] expected = new double[4 * m.cells()];
        EdgeFlux.fluxPlain(changed, expected);
        double[] got = new double[4 * m.cells()];
        assertNotNull(runtimeColour(changed, m.edges(), c1, c2, got));
        assertTrue(EdgeFlux.withinBound("changed maps", changed, expected, got));
        // no edge, one edge
        double[] none = new double[4 * m.cells()];
        runtimeColour(m, 0, c1, c2, none);
        assertTrue(java.util.Arrays.stream(none).allMatch(x -> x == 0));
        double[] one = new double[4 * m.cells()];
        double[] oneJava = new double[4 * m.cells()];
        assertNotNull(runtimeColour(changed, 1, c1, c2, one));
        EdgeFlux.fluxRuntimeColour(1, c1, c2, m.ex(), m.ey(), m.q(), m.adt(), oneJava);
        assertTrue(Check.same("one edge", oneJava, one));
        // a cell out of range: Java's exception, nothing written back
        int[] bad = c2.clone();
        bad[m.edges() / 2] = m.cells() + 3;
        double[] untouched = new double[4 * m.cells()];
        java.util.Arrays.fill(untouched, 2.5);
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> runtimeColour(changed, m.edges(), c1, bad, untouched));
        assertTrue(java.util.Arrays.stream(untouched).allMatch(x -> x == 2.5), "nothing written back");
        // more than 64 colours (every edge into cell 0): the call runs on the host, as plain Java
        int[] star = new int[200];
        double[] host = new double[4 * m.cells()];
        assertEquals(null, runtimeColour(changed, 200, star, c2, host));
    }
}
