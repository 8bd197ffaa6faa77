package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;
import org.acc4j.compiler.fixtures.IndirectKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;

/**
 * Indirect increments ({@link IndirectKernels}): without a strategy a histogram or an edge loop stays on the host
 * with the race named; with {@code @Loop(increments = ATOMIC)} the increments become atomic adds, the report says
 * so, the kernels assemble and, in the interpreter, give plain Java's integers exactly and its float sums within the
 * bound of a reordered sum.
 */
class IncrementsTest {
    private static void assembles(CompiledMethod m) throws Exception {
        Path ptxas = Ptxas.find();
        if (ptxas == null) {
            return;
        }
        var k = m.kernels().get(0);
        assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), k.entry());
        // a float add is a compare-and-swap loop (atom.add.f32 flushes subnormals, Java does not)
        assertTrue(k.ptx().contains("red.global.add") || k.ptx().contains("atom.global.cas.b32"), k.ptx());
    }

    @Test
    void withoutAStrategyTheOneThatKeepsJavasResultsIsTaken() throws Exception {
        // integer increments: atomic adds, one sum in any order
        CompiledMethod h = CompilerTest.offload(IndirectKernels.class, "histogram");
        assertNull(h.kernels().get(0).region().colour());
        assertTrue(h.report().stream().anyMatch(l -> l.contains("becomes an atomic add (integer adds: one sum in any"
                + " order)")), h.report()::toString);
        assembles(h);
        // double increments: coloured with each element's increments in the loop's order, so Java's sums
        CompiledMethod e = CompilerTest.offload(IndirectKernels.class, "edges");
        assertTrue(e.kernels().get(0).region().colour().inOrder(), e.report()::toString);
        assertTrue(e.report().stream().anyMatch(l -> l.contains("each element's increments in the loop's order: Java's"
                + " sums")), e.report()::toString);
    }

    @Test
    void incrementsOfOneUnchangingValueAreAtomicAndJavas() throws Exception {
        CompiledMethod m = CompilerTest.offload(IndirectKernels.class, "annuli");
        assertNull(m.kernels().get(0).region().colour(), m.report()::toString);
        assertEquals(2, m.report().stream().filter(l -> l.contains("becomes an atomic add (integer adds, and adds of one"
                + " value that no iteration changes: one result in any order)")).count(), m.report()::toString);
        assembles(m);
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int n = 20_000;
            double[] xs = r.doubles(2 * n).toArray();
            double[] q = new double[12];
            double[] sum = r.doubles(12).toArray();
            double[] kq = q.clone();
            double[] ksum = sum.clone();
            IndirectKernels.annuli(q, sum, xs, 0.1, n);
            KernelInterpreter.run(m, new Object[] {kq, ksum, xs, 0.1, n}, 3);
            assertArrayEquals(q, kq, "seed " + seed);
            assertArrayEquals(sum, ksum, "seed " + seed);
        }
        // two values into one array: not atomic (the order of 0.1 and 0.3 matters)
        CompiledMethod two = CompilerTest.offload(IndirectKernels.class, "twoWeights");
        assertTrue(two.report().stream().noneMatch(l -> l.contains("becomes an atomic add")), two.report()::toString);
    }

    @Test
    void anAtomicHistogramIsJavas() throws Exception {
        CompiledMethod m = CompilerTest.offload(IndirectKernels.class, "histogramAtomic");
        assertTrue(m.report().stream().anyMatch(l -> l.contains("bins[...] += at a subscript read from memory becomes an "
                + "atomic add (@Loop(increments = ATOMIC))")), String.join("\n", m.report()));
        assembles(m);
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int n = 4000;
            int[] data = EdgeInputs.cells(r, n, 29);
            int[] plain = new int[29];
            int[] kernel = new int[29];
            IndirectKernels.histogram(plain, data, n);
            KernelInterpreter.run(m, new Object[] {kernel, data, n}, 3);
            assertArrayEquals(plain, kernel, "seed " + seed);
        }
    }

    @Test
    void edgeFluxesAreAtomicAndTheDirectWriteIsNot() throws Exception {
        CompiledMethod m = CompilerTest.offload(IndirectKernels.class, "edgesAtomic");
        long atomics = m.report().stream().filter(l -> l.contains("becomes an atomic add")).count();
        assertEquals(2, atomics, String.join("\n", m.report()));
        assembles(m);
        EdgeInputs.edgesAreJavasBitForBit(m, IndirectKernels::edgesAtomic);
    }

    @Test
    void floatSumsAreWithinTheBound() throws Exception {
        CompiledMethod m = CompilerTest.offload(IndirectKernels.class, "edgesAtomicFloat");
        assembles(m);
        Random r = new Random(4);
        int ne = 5000;
        int nc = 300;
        int[] c1 = EdgeInputs.cells(r, ne, nc);
        int[] c2 = EdgeInputs.cells(r, ne, nc);
        float[] q = new float[nc];
        for (int i = 0; i < nc; i++) {
            q[i] = r.nextFloat() - 0.5f;
        }
        float[] plain = new float[nc];
        float[] kernel = new float[nc];
        IndirectKernels.edgesAtomicFloat(ne, c1, c2, q, plain);
        KernelInterpreter.run(m, new Object[] {ne, c1, c2, q, kernel}, 4);
        double[] abs = new double[nc];
        int[] count = new int[nc];
        for (int e = 0; e < ne; e++) {
            float f = Math.abs(q[c1[e]] * q[c2[e]]);
            abs[c1[e]] += f;
            abs[c2[e]] += f;
            count[c1[e]]++;
            count[c2[e]]++;
        }
        for (int c = 0; c < nc; c++) {
            double bound = 2 * count[c] * Math.ulp(1.0f) * abs[c];
            assertTrue(Math.abs(plain[c] - kernel[c]) <= bound, "cell " + c + ": " + plain[c] + " vs " + kernel[c]);
        }
    }

    @Test
    void anAtomicAddAndAPlainReadOfOneArrayStayADependence() {
        Diagnostic d = CompilerTest.host(IndirectKernels.class, "atomicAndRead");
        assertTrue(d.toString().contains("res"), d.toString());
    }
}
