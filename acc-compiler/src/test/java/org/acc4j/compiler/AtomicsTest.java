package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.acc4j.compiler.fixtures.AtomicKernels;
import org.acc4j.compiler.fixtures.Arguments;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Test;

/**
 * {@code Acc.atomic...} in kernels: every nest of {@link AtomicKernels} but {@code mixed} is parallel, runs in the
 * interpreter (one thread after another, a serial order that is not Java's) with the results plain Java gives where
 * they do not depend on the order, a valid serial order where they do, and assembles with ptxas.
 */
class AtomicsTest {
    private static final int N = 5000;
    private static final int BINS = 37;

    private static int[] data(Random r, int n, int bins) {
        int[] d = new int[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextInt(bins);
        }
        return d;
    }

    @Test
    void integerHistogramsAreJavas() {
        CompiledMethod mi = CompilerTest.offload(AtomicKernels.class, "histogramInt");
        CompiledMethod ml = CompilerTest.offload(AtomicKernels.class, "histogramLong");
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int[] data = data(r, N, BINS);
            int[] plain = new int[BINS];
            int[] device = new int[BINS];
            AtomicKernels.histogramInt(plain, data, N);
            KernelInterpreter.run(mi, new Object[] {device, data, N}, 4);
            assertArrayEquals(plain, device, "seed " + seed);
            assertEquals(N, Arrays.stream(device).sum());
            long[] weight = r.longs(N).toArray();
            long[] lp = new long[BINS];
            long[] ld = new long[BINS];
            AtomicKernels.histogramLong(lp, data, weight, N);
            KernelInterpreter.run(ml, new Object[] {ld, data, weight, N}, 4);
            assertArrayEquals(lp, ld, "seed " + seed);
        }
    }

    @Test
    void doubleHistogramIsExactOnExactSumsAndWithinTheBoundOtherwise() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "histogramDouble");
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int[] data = data(r, N, BINS);
            // multiples of 1/8 below 2^20: every partial sum is exact, so any order gives Java's bits
            double[] eighths = new double[N];
            for (int i = 0; i < N; i++) {
                eighths[i] = (r.nextInt(1 << 10) - 512) / 8.0;
            }
            double[] plain = new double[BINS];
            double[] device = new double[BINS];
            AtomicKernels.histogramDouble(plain, data, eighths, N);
            KernelInterpreter.run(m, new Object[] {device, data, eighths, N}, 4);
            assertArrayEquals(plain, device, 0.0, "seed " + seed);
            // random weights: a sum of k terms in any order is within (k - 1) * ulp-ish of Java's: |d| <= (k-1) eps sum|w|
            double[] weight = r.doubles(N).map(x -> x - 0.3).toArray();
            double[] abs = new double[BINS];
            int[] count = new int[BINS];
            for (int i = 0; i < N; i++) {
                abs[data[i]] += Math.abs(weight[i]);
                count[data[i]]++;
            }
            Arrays.fill(plain, 0);
            Arrays.fill(device, 0);
            AtomicKernels.histogramDouble(plain, data, weight, N);
            KernelInterpreter.run(m, new Object[] {device, data, weight, N}, 4);
            for (int b = 0; b < BINS; b++) {
                double bound = 2 * (count[b] - 1) * Math.ulp(1.0) * abs[b];
                assertTrue(Math.abs(plain[b] - device[b]) <= bound, "bin " + b + ": " + plain[b] + " vs " + device[b]);
            }
        }
    }

    @Test
    void floatHistogramOverRowsOfATwoDimensionalArray() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "histogramFloat2D");
        Random r = new Random(11);
        int[] row = data(r, N, 5);
        int[] col = data(r, N, 7);
        float[] weight = new float[N];
        for (int i = 0; i < N; i++) {
            weight[i] = r.nextInt(64) / 4f;
        }
        float[][] plain = new float[5][7];
        float[][] device = new float[5][7];
        AtomicKernels.histogramFloat2D(plain, row, col, weight, N);
        KernelInterpreter.run(m, new Object[] {device, row, col, weight, N}, 4);
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(plain[i], device[i], 0f);
        }
    }

    @Test
    void ticketsAreEveryNumberOnce() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "tickets");
        for (int maxBlocks : new int[] {1, 3, 1000}) {
            int[] counter = {100};
            int[] tickets = new int[N];
            KernelInterpreter.run(m, new Object[] {counter, tickets, N}, maxBlocks);
            assertEquals(100 + N, counter[0]);
            int[] sorted = tickets.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < N; i++) {
                assertEquals(100 + i, sorted[i], "every old value distinct, from 100 on");
            }
        }
    }

    @Test
    void floatingPointExtremesAreJavasMinAndMax() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "floatExtremes");
        Random r = new Random(6);
        int[] data = data(r, N, BINS);
        double[] values = new double[N];
        for (int i = 0; i < N; i++) {
            int kind = r.nextInt(10);
            values[i] = kind == 0 ? 0.0 : kind == 1 ? -0.0 : data[i] == 2 && kind == 2 ? Double.NaN : r.nextGaussian();
        }
        Object[] plain = {new float[BINS], new float[BINS], new double[BINS], new double[BINS], data, values, N};
        Object[] device = {new float[BINS], new float[BINS], new double[BINS], new double[BINS], data, values, N};
        for (Object[] args : List.of(plain, device)) {
            java.util.Arrays.fill((float[]) args[0], Float.POSITIVE_INFINITY);
            java.util.Arrays.fill((float[]) args[1], Float.NEGATIVE_INFINITY);
            java.util.Arrays.fill((double[]) args[2], Double.POSITIVE_INFINITY);
            java.util.Arrays.fill((double[]) args[3], Double.NEGATIVE_INFINITY);
        }
        AtomicKernels.floatExtremes((float[]) plain[0], (float[]) plain[1], (double[]) plain[2], (double[]) plain[3],
                data, values, N);
        KernelInterpreter.run(m, device, 4);
        for (int k = 0; k < 4; k++) {
            Arguments.assertSameElements("argument " + k, plain[k], device[k]);
        }
        assertTrue(m.kernels().get(0).ptx().contains("atom.global.cas.b64"), "double min/max is a compare-and-set loop");
    }

    @Test
    void extremesAndBitsAreJavas() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "extremes");
        Random r = new Random(5);
        int[] data = data(r, N, BINS);
        long[] values = r.longs(N).toArray();
        Object[] plain = {filled(Integer.MAX_VALUE), longs(Long.MIN_VALUE), new int[BINS], longs(-1), new int[BINS], data,
            values, N};
        Object[] device = {filled(Integer.MAX_VALUE), longs(Long.MIN_VALUE), new int[BINS], longs(-1), new int[BINS], data,
            values, N};
        AtomicKernels.extremes((int[]) plain[0], (long[]) plain[1], (int[]) plain[2], (long[]) plain[3], (int[]) plain[4],
                data, values, N);
        KernelInterpreter.run(m, device, 4);
        for (int k = 0; k < 5; k++) {
            Arguments.assertSameElements("argument " + k, plain[k], device[k]);
        }
    }

    @Test
    void capturedValuesFollowASerialOrder() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "captures");
        Random r = new Random(9);
        int[] data = data(r, N, BINS);
        int[] a = new int[BINS];
        long[] b = new long[BINS];
        long[] seq = new long[BINS];
        long[] ticket = new long[N];
        int[] oldMax = new int[N];
        long[] oldXor = new long[N];
        KernelInterpreter.run(m, new Object[] {a, b, seq, data, ticket, oldMax, oldXor, N}, 4);
        int[] pa = new int[BINS];
        long[] pb = new long[BINS];
        AtomicKernels.captures(pa, pb, new long[BINS], data, new long[N], new int[N], new long[N], N);
        assertArrayEquals(pa, a, "the final maxima are Java's");
        assertArrayEquals(pb, b, "the final exclusive ors are Java's");
        // replayed in the order of the tickets, every old value is what the iterations before it left
        Integer[] order = new Integer[N];
        for (int i = 0; i < N; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (x, y) -> data[x] != data[y] ? Integer.compare(data[x], data[y]) : Long.compare(ticket[x], ticket[y]));
        int[] max = new int[BINS];
        long[] xor = new long[BINS];
        long[] next = new long[BINS];
        for (int i : order) {
            int k = data[i];
            assertEquals(next[k]++, ticket[i], "tickets of slot " + k + " are 0, 1, 2, ...");
            assertEquals(max[k], oldMax[i], "iteration " + i);
            assertEquals(xor[k], oldXor[i], "iteration " + i);
            max[k] = Math.max(max[k], (i * 7919) % 1000);
            xor[k] ^= (long) i * 0x9E3779B97F4A7C15L;
        }
        assertArrayEquals(next, seq);
    }

    @Test
    void exactlyOneClaimantPerSlot() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "claim");
        Random r = new Random(3);
        int[] data = data(r, N, BINS);
        int[] owner = filled(-1);
        int[] won = new int[N];
        KernelInterpreter.run(m, new Object[] {owner, data, won, N}, 4);
        int[] winners = new int[BINS];
        for (int i = 0; i < N; i++) {
            if (won[i] == 1) {
                winners[data[i]]++;
                assertEquals(i, owner[data[i]], "the winner's index is stored");
            }
        }
        for (int b = 0; b < BINS; b++) {
            assertEquals(1, winners[b], "slot " + b);
        }
    }

    @Test
    void exchangesFormAChainPerSlot() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "exchanges");
        Random r = new Random(4);
        int[] data = data(r, N, BINS);
        int[] ia = filled(-1);
        long[] la = longs(-1);
        float[] fa = new float[BINS];
        Arrays.fill(fa, -1f);
        double[] da = new double[BINS];
        Arrays.fill(da, -1.0);
        int[] oi = new int[N];
        long[] ol = new long[N];
        float[] of = new float[N];
        double[] od = new double[N];
        KernelInterpreter.run(m, new Object[] {ia, la, fa, da, data, oi, ol, of, od, N}, 4);
        // per slot: the values written plus the initial one are the old values returned plus the final one
        for (int b = 0; b < BINS; b++) {
            List<Double> in = new ArrayList<>(List.of(-1.0, -1.0, -2.0, -4.0));
            List<Double> outs = new ArrayList<>(List.of((double) ia[b], (double) (la[b] >> 33), (double) fa[b] * 2,
                    da[b] * 4));
            for (int i = 0; i < N; i++) {
                if (data[i] == b) {
                    in.addAll(List.of((double) i, (double) i, (double) i, (double) i));
                    outs.addAll(List.of((double) oi[i], (double) (ol[i] >> 33), (double) of[i] * 2, od[i] * 4));
                }
            }
            in.sort(null);
            outs.sort(null);
            assertEquals(in, outs, "slot " + b);
        }
    }

    @Test
    void compareAndSetComparesBits() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "casBits");
        double[] d = {-0.0, 0.0, Double.NaN, -0.0};
        float[] f = {Float.NaN, Float.intBitsToFloat(0x7fc00001), 0f, Float.NaN};
        long[] l = {7, 8, 7, 0};
        Object[] plain = {d.clone(), f.clone(), l.clone(), new int[4], 4};
        Object[] device = {d.clone(), f.clone(), l.clone(), new int[4], 4};
        AtomicKernels.casBits((double[]) plain[0], (float[]) plain[1], (long[]) plain[2], (int[]) plain[3], 4);
        KernelInterpreter.run(m, device, 4);
        assertArrayEquals(new int[] {7, 0, 4, 3}, (int[]) plain[3]);
        for (int k = 0; k < 4; k++) {
            Arguments.assertSameElements("argument " + k, plain[k], device[k]);
        }
    }

    @Test
    void readsAndWrites() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "readWrite");
        Random r = new Random(8);
        int[] data = data(r, N, BINS);
        Object[] plain = {new int[BINS], new long[BINS], new float[BINS], data, new float[N], N};
        Object[] device = {new int[BINS], new long[BINS], new float[BINS], data, new float[N], N};
        AtomicKernels.readWrite((int[]) plain[0], (long[]) plain[1], (float[]) plain[2], data, (float[]) plain[4], N);
        KernelInterpreter.run(m, device, 4);
        for (int k = 0; k < 5; k++) {
            Arguments.assertSameElements("argument " + k, plain[k], device[k]);
        }
    }

    @Test
    void anAtomicOutOfBoundsThrowsJavasException() {
        CompiledMethod m = CompilerTest.offload(AtomicKernels.class, "outOfBounds");
        int[] data = {0, 1, 2, 3};
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {new int[4], data, 4}, 4));
        assertEquals("Index 4 out of bounds for length 4", e.getMessage());
    }

    @Test
    void anAtomicAndAPlainAccessToOneArrayAreADependence() {
        Diagnostic d = CompilerTest.host(AtomicKernels.class, "mixed");
        assertTrue(d.construct().contains("bins is updated atomically") && d.construct().contains("read plainly"), d::toString);
    }

    @Test
    void updatesWithoutAResultAreReductionInstructions() {
        String hist = CompilerTest.offload(AtomicKernels.class, "histogramDouble").kernels().get(0).ptx();
        assertTrue(hist.contains("red.global.add.f64 ") && !hist.contains("atom.global.add"), hist);
        String ints = CompilerTest.offload(AtomicKernels.class, "histogramInt").kernels().get(0).ptx();
        assertTrue(ints.contains("red.global.add.u32 "), ints);
        assertTrue(ints.contains("ld.global.nc.") , "data is read only\n" + ints);
        String tickets = CompilerTest.offload(AtomicKernels.class, "tickets").kernels().get(0).ptx();
        assertTrue(tickets.contains("atom.global.add.u32 "), tickets);
        String ext = CompilerTest.offload(AtomicKernels.class, "extremes").kernels().get(0).ptx();
        for (String op : List.of("red.global.min.s32 ", "red.global.max.s64 ", "red.global.or.b32 ",
                "red.global.and.b64 ", "red.global.xor.b32 ")) {
            assertTrue(ext.contains(op), op + "\n" + ext);
        }
        String floats = CompilerTest.offload(AtomicKernels.class, "histogramFloat2D").kernels().get(0).ptx();
        assertTrue(floats.contains("add.rn.f32 ") && floats.contains("atom.global.cas.b32 ")
                && !floats.contains("add.f32 ["), "a float add keeps subnormals: a compare-and-set loop\n" + floats);
        String cas = CompilerTest.offload(AtomicKernels.class, "casBits").kernels().get(0).ptx();
        assertTrue(cas.contains("atom.global.cas.b64 ") && cas.contains("atom.global.cas.b32 "), cas);
    }

    @Test
    void everyKernelAssemblesWithPtxas() throws Exception {
        List<String> offloaded = PtxGoldenTest.offloaded(AtomicKernels.class);
        assertEquals(List.of("histogramInt", "histogramLong", "histogramDouble", "histogramFloat2D", "tickets", "extremes",
                "captures", "claim", "exchanges", "casBits", "readWrite", "outOfBounds", "floatExtremes"), offloaded);
        Path ptxas = Ptxas.find();
        org.junit.jupiter.api.Assumptions.assumeTrue(ptxas != null, "ptxas is not on the PATH: PTX not assembled");
        for (String name : offloaded) {
            for (KernelPlan k : CompilerTest.offload(AtomicKernels.class, name).kernels()) {
                assertNull(Ptxas.assemble(ptxas, k.entry(), k.ptx()), () -> "ptxas rejects " + k.entry() + ":\n" + k.ptx());
                if (k.unchecked() != null) {
                    KernelPlan.Unchecked u = k.unchecked();
                    assertNull(Ptxas.assemble(ptxas, u.entry(), u.ptx()), () -> "ptxas rejects " + u.entry() + ":\n" + u.ptx());
                }
            }
        }
    }

    private static int[] filled(int v) {
        int[] a = new int[BINS];
        Arrays.fill(a, v);
        return a;
    }

    private static long[] longs(long v) {
        long[] a = new long[BINS];
        Arrays.fill(a, v);
        return a;
    }
}
