package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import org.acc4j.Acc;
import org.acc4j.DeviceProperties;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.Device;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The device and memory routines of {@link Acc} on the GPU: the device number and properties as the driver gives
 * them, {@code malloc}'d memory that really is device memory (written and read back through JCuda) and is given
 * back by {@code free} and by shutdown, {@code deviceptr} addresses whose contents are the array's, and the
 * {@code finalize} forms of {@code copyout} and {@code delete}. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class AccApiGpuTest {
    private static final long MIB = 1L << 20;
    private Context context;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        Acc.shutdown();
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        // a reference of the test's own to the primary context the runtime uses, to read device memory directly
        context = Context.open(Device.all().get(0));
    }

    @AfterEach
    void release() {
        if (context != null) {
            context.close();
        }
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    private double[] readDoubles(long address, int n) {
        context.makeCurrent();
        double[] out = new double[n];
        CUdeviceptr p = new CUdeviceptr();
        p = p.withByteOffset(address);
        assertEquals(0, JCudaDriver.cuMemcpyDtoH(Pointer.to(out), p, (long) n * Double.BYTES));
        return out;
    }

    @Test
    void deviceNumberAndPropertiesAreTheDrivers() {
        Device d = Device.all().get(0);
        assertEquals(0, Acc.getDeviceNumber());
        Acc.setDeviceNumber(0);
        assertEquals(0, Acc.getDeviceNumber());
        DeviceProperties p = Acc.deviceProperties();
        assertEquals(new DeviceProperties(0, d.name(), d.totalMemory(), p.freeMemory(), d.computeMajor(), d.computeMinor(),
                d.multiprocessors()), p);
        assertTrue(p.freeMemory() > 0 && p.freeMemory() <= p.memory(), p::toString);
        assertEquals(d.smTarget(), p.smTarget());
        int count = Device.all().size();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.setDeviceNumber(count));
        assertTrue(e.getMessage().startsWith("acc4j: Acc.setDeviceNumber(" + count + "): there is no device " + count
                + ": there " + (count == 1 ? "is 1 CUDA device" : "are " + count + " CUDA devices")), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Acc.deviceProperties(count));
        assertEquals(0, Acc.getDeviceNumber(), "a refused switch changes nothing");
    }

    @Test
    void mallocGivesDeviceMemoryThatFreeAndShutdownGiveBack() {
        long before = context.memInfo().free();
        long a = Acc.malloc(256 * MIB);
        assertNotEquals(0, a);
        context.makeCurrent();
        assertTrue(context.memInfo().free() <= before - 256 * MIB + 8 * MIB, "256 MiB taken");
        // it is device memory: write it and read it back
        double[] values = doubles(new Random(81), 1000);
        CUdeviceptr p = new CUdeviceptr().withByteOffset(a);
        assertEquals(0, JCudaDriver.cuMemcpyHtoD(p, Pointer.to(values), values.length * 8L));
        assertArrayEquals(values, readDoubles(a, values.length));
        Acc.free(a);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.free(a));
        assertTrue(e.getMessage().contains("not an address Acc.malloc gave, or freed already"), e.getMessage());
        context.makeCurrent();
        assertTrue(context.memInfo().free() >= before - 8 * MIB, "freed");
        assertEquals(0, Acc.malloc(0));
        // what is not freed goes at shutdown
        Acc.malloc(128 * MIB);
        Acc.malloc(128 * MIB);
        Acc.shutdown();
        context.makeCurrent();
        assertTrue(context.memInfo().free() >= before - 8 * MIB, "shutdown freed the blocks");
    }

    @Test
    void deviceptrPointsAtTheArraysCopy() {
        Random r = new Random(82);
        double[] a = doubles(r, 4097);
        double[][] m = {doubles(r, 10), doubles(r, 20)};
        assertEquals(0, Acc.deviceptr(a), "not present");
        Acc.copyin(a, m);
        long pa = Acc.deviceptr(a);
        assertNotEquals(0, pa);
        assertArrayEquals(a, readDoubles(pa, a.length));
        // a row table: 16 bytes per row, the row's address then its length
        long table = Acc.deviceptr(m);
        long[] words = new long[4];
        context.makeCurrent();
        assertEquals(0, JCudaDriver.cuMemcpyDtoH(Pointer.to(words), new CUdeviceptr().withByteOffset(table), 32));
        assertEquals(Acc.deviceptr(m[1]), words[2]);
        assertEquals(20, (int) words[3]);
        assertArrayEquals(m[1], readDoubles(words[2], 20));
        Acc.delete(a, m);
        assertEquals(0, Acc.deviceptr(a));
    }

    @Test
    void finalizeDropsEveryDynamicReference() {
        Random r = new Random(83);
        int n = 100_003;
        double[] in = doubles(r, n);
        double[] out = new double[n];
        Acc.copyin(in, in, in);
        Acc.create(out);
        Acc.create(out);
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "scale", SafetyFixtures.descriptor("scale"), null,
                new Object[] {out, in, 3.0, n}));
        Acc.copyoutFinalize(out);
        assertFalse(AccRuntime.get().backend().isPresent(out), "two creates, one copyout with finalize");
        double[] expected = new double[n];
        SafetyFixtures.scale(expected, in, 3.0, n);
        assertArrayEquals(expected, out);
        Acc.deleteFinalize(in);
        assertFalse(AccRuntime.get().backend().isPresent(in), "three copyins, one delete with finalize");
    }
}
