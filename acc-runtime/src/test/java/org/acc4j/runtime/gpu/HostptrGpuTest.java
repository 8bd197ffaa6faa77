package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code Acc.hostptr} on the GPU: the inverse of {@code Acc.deviceptr} for present arrays of every element type and
 * for a row table, and a round trip through an address: values written at {@code deviceptr(a)} by other device code
 * (here JCuda's copy) reach the array {@code hostptr} names by {@code Acc.updateHost}, element for element equal to
 * plain Java's. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class HostptrGpuTest {
    private Context context;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        Acc.shutdown();
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        context = Context.open(Device.all().get(0));
    }

    @AfterEach
    void release() {
        if (context != null) {
            context.close();
        }
        Acc.shutdown();
    }

    @Test
    void hostptrInvertsDeviceptr() {
        Object[] arrays = {new double[100], new float[3], new long[1], new int[4097], new byte[5], new short[6],
                new char[7], new boolean[8]};
        double[][] m = {new double[10], new double[20]};
        Acc.copyin(arrays);
        Acc.copyin(m);
        for (Object a : arrays) {
            assertSame(a, Acc.hostptr(Acc.deviceptr(a)));
        }
        assertSame(m, Acc.hostptr(Acc.deviceptr(m)));
        assertSame(m[1], Acc.hostptr(Acc.deviceptr(m[1])));
        long inside = Acc.deviceptr(arrays[0]) + 8;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.hostptr(inside));
        assertTrue(e.getMessage().contains("it is byte 8 of the copy of double[100]"), e.getMessage());
        long first = Acc.deviceptr(arrays[0]);
        Acc.delete(arrays[0]);
        assertThrows(IllegalArgumentException.class, () -> Acc.hostptr(first), "not present any more");
    }

    @Test
    void valuesWrittenAtTheAddressReachTheArrayHostptrNames() {
        Random r = new Random(160);
        int n = 65_537;
        double[] a = new double[n];
        Acc.copyin(a);
        double[] expected = new double[n];
        for (int i = 0; i < n; i++) {
            expected[i] = r.nextDouble() * 2 - 1;
        }
        long p = Acc.deviceptr(a);
        context.makeCurrent();
        assertEquals(0, JCudaDriver.cuMemcpyHtoD(new CUdeviceptr().withByteOffset(p), Pointer.to(expected), n * 8L));
        double[] found = (double[]) Acc.hostptr(p);
        assertSame(a, found);
        Acc.updateHost(found);
        assertArrayEquals(expected, a);
        Acc.delete(a);
    }
}
