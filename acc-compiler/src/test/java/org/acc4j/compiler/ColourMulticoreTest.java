package org.acc4j.compiler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.Colouring;
import org.acc4j.compiler.fixtures.ColourKernels;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.jvm.HostKernels;
import org.acc4j.compiler.jvm.TestPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Coloured loops ({@code @Loop(increments = COLOUR)}, {@link ColourKernels}) on the host's cores: the colours one
 * after the other, each colour's iterations in chunks on 1 to 5 threads, against plain Java on random inputs from a
 * fixed seed, every element: integers and exactly representable sums bit for bit with Java's own loop, float sums bit
 * for bit with the kernel interpreter's colour-by-colour run (the GPU's order) and within the bound of a reordered sum
 * of Java's; Java's first exception with nothing written; index arrays changed between calls coloured again; more
 * than 64 colours refused with the reason.
 */
class ColourMulticoreTest {
    private static final List<TestPool> POOLS = List.of(new TestPool(1), new TestPool(2), new TestPool(3),
            new TestPool(5));

    @AfterAll
    static void close() {
        POOLS.forEach(TestPool::close);
    }

    private static List<HostKernels.Launch> run(HostKernels hk, Object[] args, TestPool pool) {
        List<HostKernels.Launch> launches = new ArrayList<>();
        hk.run(s -> args[((ArrayRef.Parameter) s).index()], args, pool, launches::add);
        return launches;
    }

    @Test
    void edgesAreJavasBitForBitOnEveryThreadCount() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(ColourKernels.class, "edges"));
        for (long seed = 1; seed <= 3; seed++) {
            Random r = new Random(seed);
            int ne = 30_000;
            int nc = 7_000;
            int[] c1 = EdgeInputs.cells(r, ne, nc);
            int[] c2 = EdgeInputs.cells(r, ne, nc);
            double[] q = EdgeInputs.exactValues(r, nc);
            double[] plain = new double[nc];
            double[] fluxStart = r.doubles(ne).toArray();
            double[] fluxPlain = fluxStart.clone();
            ColourKernels.edges(ne, c1, c2, q, plain, fluxPlain);
            int colours = Colouring.ofRange(0, ne, nc, c1, c2).colours();
            for (TestPool pool : POOLS) {
                double[] res = new double[nc];
                double[] flux = fluxStart.clone();
                List<HostKernels.Launch> l = run(hk, new Object[] {ne, c1, c2, q, res, flux}, pool);
                assertArrayEquals(plain, res, 0.0, "seed " + seed + " on " + pool.threads() + " threads");
                assertArrayEquals(fluxPlain, flux, 0.0, "seed " + seed + " on " + pool.threads() + " threads");
                assertEquals(1, l.size());
                assertEquals(colours, l.get(0).colours());
                assertEquals(ne, l.get(0).trip());
                assertTrue(colours > 1 && l.get(0).chunks() >= colours, l.get(0).toString());
            }
        }
    }

    @Test
    void anIntHistogramWithManyColoursIsJavas() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(ColourKernels.class, "histogram"));
        Random r = new Random(5);
        int n = 12_000;
        // few bins (30 iterations each on average): many colours
        int[] data = EdgeInputs.cells(r, n, 400);
        int[] plain = new int[400];
        ColourKernels.histogram(plain, data, n);
        for (TestPool pool : POOLS) {
            int[] bins = new int[400];
            run(hk, new Object[] {bins, data, n}, pool);
            assertArrayEquals(plain, bins, "on " + pool.threads() + " threads");
        }
    }

    @Test
    void floatSumsComeOutInColourOrderAsTheInterpretersAndWithinTheBound() {
        CompiledMethod m = CompilerTest.offload(ColourKernels.class, "cells4");
        HostKernels hk = HostKernels.of(m);
        Random r = new Random(6);
        int ne = 20_000;
        int nc = 4_000;
        int[] c1 = EdgeInputs.cells(r, ne, nc);
        int[] c2 = EdgeInputs.cells(r, ne, nc);
        float[] q = new float[4 * nc];
        for (int i = 0; i < q.length; i++) {
            q[i] = r.nextFloat() - 0.5f;
        }
        float[] plain = new float[4 * nc];
        ColourKernels.cells4(ne, c1, c2, q, plain);
        float[] interpreted = new float[4 * nc];
        KernelInterpreter.run(m, new Object[] {ne, c1, c2, q, interpreted}, 4);
        for (TestPool pool : POOLS) {
            float[] res = new float[4 * nc];
            run(hk, new Object[] {ne, c1, c2, q, res}, pool);
            assertArrayEquals(interpreted, res, 0.0f, "on " + pool.threads() + " threads");
            EdgeInputs.cells4WithinTheBound(ne, c1, c2, q, plain, res);
        }
    }

    @Test
    void javasFirstExceptionWithNothingWritten() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(ColourKernels.class, "edges"));
        // Java fails at edge 1 (q[9]); colour 0 holds edges 0 and 2, and edge 2 fails first there (q[7])
        int[] c1 = {0, 0, 7};
        int[] c2 = {1, 9, 2};
        double[] q = {1, 2, 3};
        ArrayIndexOutOfBoundsException java = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> ColourKernels.edges(3, c1, c2, q, new double[3], new double[3]));
        assertTrue(java.getMessage().contains("Index 9 "), java.getMessage());
        for (TestPool pool : POOLS) {
            double[] res = {10, 20, 30};
            double[] flux = {1, 2, 3};
            ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class,
                    () -> run(hk, new Object[] {3, c1, c2, q, res, flux}, pool));
            assertEquals(java.getMessage(), e.getMessage());
            assertTrue(HostKernels.raisedByKernel(e));
            assertArrayEquals(new double[] {10, 20, 30}, res, 0.0);
            assertArrayEquals(new double[] {1, 2, 3}, flux, 0.0);
        }
    }

    @Test
    void indexArraysChangedBetweenCallsAreColouredAgain() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(ColourKernels.class, "histogram"));
        int n = 600_000;
        int bins = 20_000;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = i % bins;
        }
        TestPool pool = POOLS.get(2);
        int[] counts = new int[bins];
        List<HostKernels.Launch> first = run(hk, new Object[] {counts, data, n}, pool);
        int[] expected = new int[bins];
        ColourKernels.histogram(expected, data, n);
        assertArrayEquals(expected, counts);
        assertEquals(30, first.get(0).colours());
        // unchanged: the kept colouring
        assertEquals(30, run(hk, new Object[] {counts, data, n}, pool).get(0).colours());
        ColourKernels.histogram(expected, data, n);
        assertArrayEquals(expected, counts);
        // one element changed far into the map (compared in pieces on the pool): bin 3 now takes 31 iterations, so
        // 31 colours; the stale colouring would have run two of them in one colour
        data[n - 7] = 3;
        assertEquals(31, run(hk, new Object[] {counts, data, n}, pool).get(0).colours());
        ColourKernels.histogram(expected, data, n);
        assertArrayEquals(expected, counts);
        // the same contents in another array: coloured again too
        int[] copy = data.clone();
        assertEquals(31, run(hk, new Object[] {counts, copy, n}, pool).get(0).colours());
        ColourKernels.histogram(expected, copy, n);
        assertArrayEquals(expected, counts);
    }

    @Test
    void moreThan64ColoursRunAsPlainJavaWithTheReason() {
        HostKernels hk = HostKernels.of(CompilerTest.offload(ColourKernels.class, "histogram"));
        int[] data = new int[65];
        int[] bins = new int[1];
        HostKernels.HostInstead h = assertThrows(HostKernels.HostInstead.class,
                () -> run(hk, new Object[] {bins, data, 65}, POOLS.get(1)));
        assertTrue(h.getMessage().contains("iteration 64 needs more than 64 colours"), h.getMessage());
        assertEquals(0, bins[0]);
    }
}
