package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.Kernels;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Reductions updated by a conditional expression ({@code count += a[i] > t ? 1 : 0}) on the GPU against plain Java,
 * every output compared, at lengths from 0 to many blocks. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class TernaryReduceGpuTest {
    @Kernels
    static int countAbove(double[] a, double t, int n) {
        int count = 0;
        for (int i = 0; i < n; i++) {
            count += a[i] > t ? 1 : 0;
        }
        return count;
    }

    @Kernels
    static long clampAndSum(long[] a, int n, long lo) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            long x = a[i];
            s += x < lo ? lo : x;
            a[i] = x < lo ? lo : x;
        }
        return s;
    }

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    @Test
    void conditionalUpdatesGivePlainJavasResults() {
        Random r = new Random(31);
        for (int n : new int[] {0, 1, 33, 4096, 300_001}) {
            double[] d = r.doubles(n).toArray();
            Object[] got = AccRuntime.offloadValue(TernaryReduceGpuTest.class, "countAbove", "([DDI)I", null,
                    new Object[] {d, 0.25, n});
            assertNotNull(got, "countAbove did not run on the device, n=" + n);
            assertEquals(countAbove(d, 0.25, n), got[0], "countAbove n=" + n);
            long[] a = r.longs(n, -1000, 1000).toArray();
            long[] plain = a.clone();
            long[] device = a.clone();
            got = AccRuntime.offloadValue(TernaryReduceGpuTest.class, "clampAndSum", "([JIJ)J", null,
                    new Object[] {device, n, -100L});
            assertNotNull(got, "clampAndSum did not run on the device, n=" + n);
            assertEquals(clampAndSum(plain, n, -100L), got[0], "clampAndSum n=" + n);
            assertArrayEquals(plain, device, "clampAndSum's array, n=" + n);
        }
    }
}
