package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Without the agent the atomic routines are VarHandle's array-element atomics. */
class AccAtomicsHostTest {
    @Test
    void addReturnsTheOldValueOnEveryType() {
        int[] i = {5};
        long[] l = {Long.MAX_VALUE};
        float[] f = {0.1f};
        double[] d = {0.1};
        assertEquals(5, Acc.atomicAdd(i, 0, 3));
        assertEquals(8, i[0]);
        assertEquals(Long.MAX_VALUE, Acc.atomicAdd(l, 0, 1L));
        assertEquals(Long.MIN_VALUE, l[0]);
        assertEquals(0.1f, Acc.atomicAdd(f, 0, 0.2f));
        assertEquals(0.1f + 0.2f, f[0]);
        assertEquals(0.1, Acc.atomicAdd(d, 0, 0.2));
        assertEquals(0.1 + 0.2, d[0]);
        float[] sub = {Float.MIN_VALUE};
        assertEquals(Float.MIN_VALUE, Acc.atomicAdd(sub, 0, Float.MIN_VALUE));
        assertEquals(2 * Float.MIN_VALUE, sub[0], 0f, "subnormals are kept");
        float[] nz = {-0.0f};
        Acc.atomicAdd(nz, 0, -0.0f);
        assertEquals(Float.floatToRawIntBits(-0.0f), Float.floatToRawIntBits(nz[0]));
    }

    @Test
    void minMaxAndBitwise() {
        int[] i = {7};
        assertEquals(7, Acc.atomicMin(i, 0, -3));
        assertEquals(-3, Acc.atomicMax(i, 0, -5));
        assertEquals(-3, i[0]);
        long[] l = {1L << 40};
        assertEquals(1L << 40, Acc.atomicMax(l, 0, 1L << 41));
        assertEquals(1L << 41, Acc.atomicMin(l, 0, Long.MIN_VALUE));
        assertEquals(Long.MIN_VALUE, l[0]);
        int[] b = {0b1100};
        assertEquals(0b1100, Acc.atomicAnd(b, 0, 0b1010));
        assertEquals(0b1000, Acc.atomicOr(b, 0, 0b0001));
        assertEquals(0b1001, Acc.atomicXor(b, 0, 0b1111));
        assertEquals(0b0110, b[0]);
        long[] lb = {-1L};
        assertEquals(-1L, Acc.atomicAnd(lb, 0, 0xF0L));
        assertEquals(0xF0L, Acc.atomicOr(lb, 0, 1L << 62));
        assertEquals(0xF0L | 1L << 62, Acc.atomicXor(lb, 0, 0xF0L));
        assertEquals(1L << 62, lb[0]);
    }

    @Test
    void floatingMinAndMaxAreMathMinAndMax() {
        double[] d = {1.5};
        assertEquals(1.5, Acc.atomicMin(d, 0, -2.0));
        assertEquals(-2.0, d[0]);
        assertEquals(-2.0, Acc.atomicMax(d, 0, 3.0));
        assertEquals(3.0, d[0]);
        double[] z = {0.0};
        Acc.atomicMin(z, 0, -0.0);
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(z[0]), "-0.0 is below 0.0");
        Acc.atomicMax(z, 0, 0.0);
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(z[0]), "0.0 is above -0.0");
        Acc.atomicMin(z, 0, Double.NaN);
        assertTrue(Double.isNaN(z[0]), "a NaN wins");
        assertTrue(Double.isNaN(Acc.atomicMax(z, 0, 5.0)));
        float[] f = {2f};
        assertEquals(2f, Acc.atomicMax(f, 0, 7f));
        assertEquals(7f, Acc.atomicMin(f, 0, Float.NaN));
        assertTrue(Float.isNaN(f[0]));
        float[] g = {-0.0f};
        Acc.atomicMax(g, 0, 0.0f);
        assertEquals(Float.floatToRawIntBits(0.0f), Float.floatToRawIntBits(g[0]));
    }

    @Test
    void floatingMinFromManyThreadsIsTheSequentialMinimum() throws Exception {
        double[] d = {Double.POSITIVE_INFINITY};
        double[] values = new java.util.Random(3).doubles(40_000).map(x -> x * 1e6 - 5e5).toArray();
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            int part = t;
            ts[t] = new Thread(() -> {
                for (int i = part; i < values.length; i += 4) {
                    Acc.atomicMin(d, 0, values[i]);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        double expect = Double.POSITIVE_INFINITY;
        for (double v : values) {
            expect = Math.min(expect, v);
        }
        assertEquals(expect, d[0]);
    }

    @Test
    void exchangeCompareAndSetReadAndWrite() {
        int[] i = {1};
        long[] l = {2};
        float[] f = {3};
        double[] d = {4};
        assertEquals(1, Acc.atomicExchange(i, 0, 10));
        assertEquals(2L, Acc.atomicExchange(l, 0, 20L));
        assertEquals(3f, Acc.atomicExchange(f, 0, 30f));
        assertEquals(4.0, Acc.atomicExchange(d, 0, 40.0));
        assertTrue(Acc.atomicCompareAndSet(i, 0, 10, 11));
        assertFalse(Acc.atomicCompareAndSet(i, 0, 10, 12));
        assertTrue(Acc.atomicCompareAndSet(l, 0, 20L, 21L));
        assertFalse(Acc.atomicCompareAndSet(l, 0, 20L, 22L));
        assertEquals(11, Acc.atomicRead(i, 0));
        assertEquals(21L, Acc.atomicRead(l, 0));
        Acc.atomicWrite(f, 0, 31f);
        Acc.atomicWrite(d, 0, 41.0);
        assertEquals(31f, Acc.atomicRead(f, 0));
        assertEquals(41.0, Acc.atomicRead(d, 0));
        Acc.atomicWrite(i, 0, 12);
        Acc.atomicWrite(l, 0, 22L);
        assertArrayEquals(new int[] {12}, i);
        assertArrayEquals(new long[] {22}, l);
    }

    @Test
    void floatingCompareAndSetComparesRawBits() {
        double[] d = {-0.0};
        assertFalse(Acc.atomicCompareAndSet(d, 0, 0.0, 1.0));
        assertTrue(Acc.atomicCompareAndSet(d, 0, -0.0, 1.0));
        float nan = Float.intBitsToFloat(0x7fc00001);
        float[] f = {nan};
        assertFalse(Acc.atomicCompareAndSet(f, 0, Float.intBitsToFloat(0x7fc00002), 1f));
        assertTrue(Acc.atomicCompareAndSet(f, 0, nan, 2f));
        assertEquals(2f, f[0]);
        double[] dn = {Double.NaN};
        assertTrue(Acc.atomicCompareAndSet(dn, 0, Double.NaN, 3.0));
    }

    @Test
    void boundsAndNullAreJavas() {
        int[] a = new int[3];
        ArrayIndexOutOfBoundsException e = assertThrows(ArrayIndexOutOfBoundsException.class, () -> Acc.atomicAdd(a, 3, 1));
        assertEquals("Index 3 out of bounds for length 3", e.getMessage());
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Acc.atomicMin(new long[1], -1, 0L));
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> Acc.atomicRead(new double[0], 0));
        assertThrows(NullPointerException.class, () -> Acc.atomicAdd((double[]) null, 0, 1.0));
        assertThrows(NullPointerException.class, () -> Acc.atomicMax((int[]) null, 0, 1));
    }

    @Test
    void concurrentUpdatesLoseNothing() {
        int[] counter = new int[1];
        double[] sum = new double[1];
        int[] max = {Integer.MIN_VALUE};
        boolean[] taken = new boolean[40_000];
        IntStream.range(0, 40_000).parallel().forEach(k -> {
            int old = Acc.atomicAdd(counter, 0, 1);
            taken[old] = true;
            Acc.atomicAdd(sum, 0, 1.0);
            Acc.atomicMax(max, 0, k);
        });
        assertEquals(40_000, counter[0]);
        assertEquals(40_000.0, sum[0]);
        assertEquals(39_999, max[0]);
        for (boolean t : taken) {
            assertTrue(t);
        }
    }
}
