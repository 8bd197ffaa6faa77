package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.Random;
import org.acc4j.Colouring;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.KernelParam;
import org.junit.jupiter.api.Test;

/**
 * The irregular samples ({@link SparseRows}, {@link EdgeFlux}) in the kernel interpreter against plain Java, the
 * edge colouring's invariants, and both samples run as plain Java (the host path) to their verdict.
 */
class IrregularInterpreterTest {
    static Method method(Class<?> c, String name) {
        for (Method m : c.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    /** A matrix whose offsets go back in places: those rows have no iterations in Java. */
    static SparseRows.Matrix nonMonotonic(int rows, long seed) {
        SparseRows.Matrix a = SparseRows.powerLaw(rows, seed);
        int[] rowptr = a.rowptr().clone();
        for (int r = 3; r < rows; r += 7) {
            rowptr[r] = rowptr[r + 1] + 1;
        }
        return new SparseRows.Matrix("non-monotonic", rows, rowptr, a.col(), a.val());
    }

    @Test
    void sparseRowsInTheInterpreterAreJavas() throws Exception {
        CompiledMethod rows = CatalogInterpreterTest.compile(method(SparseRows.class, "multiplyRows"));
        CompiledMethod lanes = CatalogInterpreterTest.compile(method(SparseRows.class, "multiplyLanes"));
        assertTrue(lanes.kernels().get(0).params().stream().anyMatch(p -> p instanceof KernelParam.RowLanes));
        assertTrue(rows.kernels().get(0).params().stream().noneMatch(p -> p instanceof KernelParam.RowLanes));
        for (SparseRows.Matrix a : new SparseRows.Matrix[] {SparseRows.laplacian(23), SparseRows.powerLaw(700, 3),
            nonMonotonic(300, 4)}) {
            int n = a.rows();
            double[] x = Check.random(new Random(8), n);
            double[] expected = new double[n];
            SparseRows.multiplyPlain(n, a.rowptr(), a.col(), a.val(), x, expected);
            for (CompiledMethod m : new CompiledMethod[] {rows, lanes}) {
                double[] y = new double[n];
                KernelInterpreter.run(m, new Object[] {n, a.rowptr(), a.col(), a.val(), x, y}, 3);
                assertArrayEquals(expected, y, 0.0, a.name());
            }
            double[] plain = new double[n];
            SparseRows.multiplyLanes(n, a.rowptr(), a.col(), a.val(), x, plain);
            assertArrayEquals(expected, plain, 0.0, a.name() + " as plain Java");
        }
    }

    @Test
    void edgeFluxesInTheInterpreterAreWithinTheBound() throws Exception {
        EdgeFlux.Mesh m = EdgeFlux.generate(37, 23, 5);
        double[] expected = new double[4 * m.cells()];
        EdgeFlux.fluxPlain(m, expected);
        CompiledMethod atomic = CatalogInterpreterTest.compile(method(EdgeFlux.class, "fluxAtomic"));
        assertEquals(8, atomic.report().stream().filter(l -> l.contains("becomes an atomic add")).count(),
                String.join("\n", atomic.report()));
        double[] res = new double[4 * m.cells()];
        KernelInterpreter.run(atomic, new Object[] {m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), res}, 3);
        assertTrue(EdgeFlux.withinBound("atomics", m, expected, res));
        CompiledMethod colour = CatalogInterpreterTest.compile(method(EdgeFlux.class, "fluxColour"));
        Colouring col = Colouring.of(m.edges(), m.c1(), m.c2());
        double[] coloured = new double[4 * m.cells()];
        for (int c = 0; c < col.colours(); c++) {
            KernelInterpreter.run(colour, new Object[] {col.start(c), col.end(c), col.order(), m.c1(), m.c2(), m.ex(),
                m.ey(), m.q(), m.adt(), coloured}, 3);
        }
        assertTrue(EdgeFlux.withinBound("colouring", m, expected, coloured));
        CompiledMethod runtime = CatalogInterpreterTest.compile(method(EdgeFlux.class, "fluxRuntimeColour"));
        assertEquals(java.util.List.of("c1", "c2"), runtime.kernels().get(0).region().colour().maps().stream()
                .map(org.acc4j.compiler.ir.ArrayRef::name).toList());
        double[] byRuntime = new double[4 * m.cells()];
        KernelInterpreter.run(runtime, new Object[] {m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(),
            byRuntime}, 3);
        assertTrue(EdgeFlux.withinBound("runtime colouring", m, expected, byRuntime));
        double[] plain = new double[4 * m.cells()];
        EdgeFlux.fluxAtomic(m.edges(), m.c1(), m.c2(), m.ex(), m.ey(), m.q(), m.adt(), plain);
        assertArrayEquals(expected, plain, 0.0, "the atomic loop as plain Java is Java's loop");
    }

    @Test
    void noTwoEdgesOfAColourShareACellAndTheCacheSeesChanges() {
        Random r = new Random(12);
        int items = 5000;
        int cells = 900;
        int[] c1 = new int[items];
        int[] c2 = new int[items];
        for (int i = 0; i < items; i++) {
            c1[i] = r.nextInt(cells);
            c2[i] = r.nextInt(cells);
        }
        Colouring.Cache cache = new Colouring.Cache();
        Colouring col = cache.of(items, c1, c2);
        boolean[] seen = new boolean[items];
        for (int c = 0; c < col.colours(); c++) {
            boolean[] used = new boolean[cells];
            for (int j = col.start(c); j < col.end(c); j++) {
                int e = col.order()[j];
                assertTrue(!seen[e], "item " + e + " twice");
                seen[e] = true;
                assertTrue(!used[c1[e]] && (c1[e] == c2[e] || !used[c2[e]]), "colour " + c + " shares a cell at " + e);
                used[c1[e]] = true;
                used[c2[e]] = true;
                assertTrue(j == col.start(c) || col.order()[j - 1] < e, "items in order within a colour");
            }
        }
        for (boolean s : seen) {
            assertTrue(s);
        }
        assertSame(col, cache.of(items, c1, c2));
        c2[17] = (c2[17] + 1) % cells;
        assertNotSame(col, cache.of(items, c1, c2));
        assertSame(cache.of(items, c1, c2), cache.of(items, c1, c2));
        assertNotSame(cache.of(items, c1, c2), cache.of(items, c1, c2.clone()));
        int[] star = new int[100];
        assertThrows(IllegalArgumentException.class, () -> Colouring.of(100, star));
        assertThrows(IllegalArgumentException.class, () -> Colouring.of(3, new int[] {0, -1, 2}));
    }

    @Test
    void bothSamplesRunAsPlainJavaToTheirVerdict() {
        SparseRows.main(new String[] {"4096", "1"});
        EdgeFlux.main(new String[] {"4096", "1"});
    }
}
