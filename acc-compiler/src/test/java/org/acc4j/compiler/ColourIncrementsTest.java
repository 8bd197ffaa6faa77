package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.acc4j.Colouring;
import org.acc4j.compiler.fixtures.ColourKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.ColourPlan;
import org.junit.jupiter.api.Test;

/**
 * {@code @Loop(increments = COLOUR)} ({@link ColourKernels}): the plan names the index arrays, the loop runs over the
 * colour order with plain adds, the kernels assemble, and in the kernel interpreter, which launches colour by colour
 * with its race check on, the results are plain Java's: integers and exactly representable sums bit for bit, float
 * sums within the bound of a reordered sum. Subscripts colouring cannot take are named with their line.
 */
class ColourIncrementsTest {
    private static void assemblesWithoutAtomics(CompiledMethod m) throws Exception {
        var k = m.kernels().get(0);
        // plain adds: no atomic add, and no compare-and-swap but the error record's
        assertFalse(k.ptx().contains("red.global") || k.ptx().contains("atom.global.add"), k.ptx());
        assertTrue(k.ptx().split("atom\\.global\\.cas", -1).length <= 2, k.ptx());
        Path ptxas = Ptxas.find();
        if (ptxas != null) {
            assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        }
    }

    private static String report(CompiledMethod m) {
        return String.join("\n", m.report());
    }

    @Test
    void thePlanNamesTheIndexArraysAndTheReportTheStrategy() throws Exception {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "edges");
        ColourPlan c = m.kernels().get(0).region().colour();
        assertNotNull(c, report(m));
        assertTrue(c.lowered());
        assertEquals(List.of("c1", "c2"), c.maps().stream().map(ArrayRef::name).toList());
        assertEquals(1, c.targets().size());
        assertEquals("res", c.targets().get(0).array().name());
        assertEquals(1, c.targets().get(0).scale());
        assertEquals("e", c.item().name());
        assertTrue(report(m).contains("@Loop(increments = COLOUR): the loop over e runs colour by colour"), report(m));
        assertTrue(report(m).contains("through c1, c2"), report(m));
        assemblesWithoutAtomics(m);
    }

    @Test
    void edgesAreJavasBitForBit() {
        EdgeInputs.edgesAreJavasBitForBit(CompilerTest.offload(ColourKernels.class, "edges"), ColourKernels::edges);
    }

    @Test
    void anIntHistogramIsJavas() throws Exception {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "histogram");
        assemblesWithoutAtomics(m);
        Random r = new Random(5);
        int n = 1000;
        // few bins: many colours
        int[] data = EdgeInputs.cells(r, n, 200);
        int[] plain = new int[200];
        int[] kernel = new int[200];
        ColourKernels.histogram(plain, data, n);
        KernelInterpreter.run(m, new Object[] {kernel, data, n}, 2);
        assertArrayEquals(plain, kernel);
    }

    @Test
    void fourComponentsPerCellAreWithinTheBound() throws Exception {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "cells4");
        ColourPlan c = m.kernels().get(0).region().colour();
        assertEquals(4, c.targets().get(0).scale(), report(m));
        assemblesWithoutAtomics(m);
        Random r = new Random(6);
        int ne = 2000;
        int nc = 400;
        int[] c1 = EdgeInputs.cells(r, ne, nc);
        int[] c2 = EdgeInputs.cells(r, ne, nc);
        float[] q = new float[4 * nc];
        for (int i = 0; i < q.length; i++) {
            q[i] = r.nextFloat() - 0.5f;
        }
        float[] plain = new float[4 * nc];
        float[] kernel = new float[4 * nc];
        ColourKernels.cells4(ne, c1, c2, q, plain);
        KernelInterpreter.run(m, new Object[] {ne, c1, c2, q, kernel}, 4);
        EdgeInputs.cells4WithinTheBound(ne, c1, c2, q, plain, kernel);
    }

    @Test
    void autoChoosesAtomicsForDoublesAndColouringForFloats() {
        CompiledMethod d = CompilerTest.offload(ColourKernels.class, "autoDouble");
        assertNull(d.kernels().get(0).region().colour());
        assertTrue(report(d).contains("@Loop(increments = AUTO) on the loop over e chose atomics"), report(d));
        assertTrue(d.kernels().get(0).ptx().contains("red.global.add") || d.kernels().get(0).ptx().contains("atom.global"));
        CompiledMethod f = CompilerTest.offload(ColourKernels.class, "autoFloat");
        assertNotNull(f.kernels().get(0).region().colour(), report(f));
        assertTrue(report(f).contains("@Loop(increments = AUTO) chose colouring: res at line"), report(f));
        Random r = new Random(7);
        int ne = 1500;
        int nc = 300;
        int[] c1 = EdgeInputs.cells(r, ne, nc);
        int[] c2 = EdgeInputs.cells(r, ne, nc);
        // small integers: exact float sums
        float[] q = new float[nc];
        for (int i = 0; i < nc; i++) {
            q[i] = r.nextInt(32);
        }
        float[] plain = new float[nc];
        float[] kernel = new float[nc];
        ColourKernels.autoFloat(ne, c1, c2, q, plain);
        KernelInterpreter.run(f, new Object[] {ne, c1, c2, q, kernel}, 3);
        assertArrayEquals(plain, kernel, 0f);
    }

    @Test
    void anEmptyLoopAndOneEdge() {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "edges");
        double[] res = {1, 2, 3};
        double[] flux = {};
        KernelInterpreter.run(m, new Object[] {0, new int[0], new int[0], new double[] {1, 2, 3}, res, flux}, 2);
        assertArrayEquals(new double[] {1, 2, 3}, res, 0.0);
        double[] plain = {1, 2, 3};
        double[] kernel = {1, 2, 3};
        double[] fp = {0.25};
        double[] fk = {0.25};
        double[] q = {4, 8, 16};
        ColourKernels.edges(1, new int[] {2}, new int[] {0}, q, plain, fp);
        KernelInterpreter.run(m, new Object[] {1, new int[] {2}, new int[] {0}, q, kernel, fk}, 2);
        assertArrayEquals(plain, kernel, 0.0);
        assertArrayEquals(fp, fk, 0.0);
    }

    @Test
    void aCellOutOfRangeThrowsJavasException() {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "edges");
        int[] c1 = {0, 1, 7};
        int[] c2 = {1, 2, 0};
        double[] q = {1, 2, 3};
        assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> ColourKernels.edges(3, c1, c2, q, new double[3], new double[3]));
        assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {3, c1, c2, q, new double[3], new double[3]}, 2));
        int[] negative = {0, -1, 2};
        assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {3, negative, c2, q, new double[3], new double[3]}, 2));
    }

    @Test
    void mapsChangedBetweenCallsAreColouredAgain() {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "histogram");
        int[] data = {0, 1, 2, 3};
        int[] bins = new int[4];
        KernelInterpreter.run(m, new Object[] {bins, data, 4}, 2);
        assertArrayEquals(new int[] {1, 1, 1, 1}, bins);
        // all into one bin now: one colour each; the race check would fail on a stale colouring of one colour
        java.util.Arrays.fill(data, 3);
        KernelInterpreter.run(m, new Object[] {bins, data, 4}, 2);
        assertArrayEquals(new int[] {1, 1, 1, 5}, bins);
    }

    @Test
    void moreThan64ColoursRunOnTheHostWithTheReason() {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "histogram");
        int[] data = new int[65];
        KernelInterpreter.HostInstead h = assertThrows(KernelInterpreter.HostInstead.class,
                () -> KernelInterpreter.run(m, new Object[] {new int[1], data, 65}, 2));
        assertTrue(h.getMessage().contains("iteration 64 needs more than 64 colours"), h.getMessage());
        assertEquals(64, Colouring.ofRange(0, 64, 1, data).colours());
    }

    @Test
    void subscriptsColouringCannotTakeAreNamed() {
        String shifted = CompilerTest.host(ColourKernels.class, "shifted").toString();
        assertTrue(shifted.contains("the subscript of res at line") && shifted.contains("with a = 1 and k = 1"),
                shifted);
        String squared = CompilerTest.host(ColourKernels.class, "squared").toString();
        assertTrue(squared.contains("is not m[e] or a*m[e] + k for one int[] index array m"), squared);
        String writes = CompilerTest.host(ColourKernels.class, "writesItsMap").toString();
        assertTrue(writes.contains("the loop writes its index array c1"), writes);
        String inner = CompilerTest.host(ColourKernels.class, "inner").toString();
        assertTrue(inner.contains("only the outer loop of a nest is coloured"), inner);
        String direct = CompilerTest.host(ColourKernels.class, "alsoDirect").toString();
        assertTrue(direct.contains("res is also written at line") && direct.contains("not by an increment through an "
                + "index array"), direct);
        String branch = CompilerTest.host(ColourKernels.class, "branchSetsTheCell").toString();
        assertTrue(branch.contains("the subscript of res at line"), branch);
        String read = CompilerTest.host(ColourKernels.class, "colourAndRead").toString();
        assertTrue(read.contains("res is written and also accessed at another subscript"), read);
    }
}
