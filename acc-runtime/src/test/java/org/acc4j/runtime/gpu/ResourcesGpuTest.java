package org.acc4j.runtime.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.cuda.Context;
import org.acc4j.runtime.cuda.DriverException;
import org.acc4j.runtime.cuda.Device;
import org.acc4j.runtime.cuda.DeviceBuffer;
import org.acc4j.runtime.data.CudaMemory;
import org.acc4j.runtime.data.OutOfDeviceMemoryException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Device memory on the GPU, measured with {@code cuMemGetInfo} through a context reference of the test's own (the
 * primary context is shared with the runtime): running out is a clear exception or the host path and leaks nothing;
 * 10⁴ calls and data regions with fresh arrays leave free memory where it started; {@code Acc.shutdown} gives
 * everything back. Device memory is filled with one raw buffer (a "hog"), not with host arrays, to spare the JVM's
 * heap. Skips, saying why, where there is no CUDA device.
 */
@Tag("gpu")
class ResourcesGpuTest {
    private static final long MIB = 1L << 20;
    /** What free memory may move by without a leak: the driver's allocation granularity and caches. */
    private static final long TOLERANCE = 32 * MIB;
    private static final int N = 1 << 24;

    private Context context;
    private DeviceBuffer hog;

    @BeforeEach
    void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        context = Context.open(Device.all().get(0));
    }

    @AfterEach
    void release() {
        if (context != null) {
            context.makeCurrent();
            if (hog != null) {
                hog.close();
            }
            context.close();
        }
    }

    private long free() {
        context.makeCurrent();
        return context.memInfo().free();
    }

    /** Takes device memory until about {@code left} bytes are free; returns the free bytes then. */
    private long fillLeaving(long left) {
        context.makeCurrent();
        long take = context.memInfo().free() - left;
        while (hog == null) {
            try {
                hog = DeviceBuffer.allocate(take, "the test's hog");
            } catch (DriverException e) {
                // fragmentation: take a little less
                take -= 64 * MIB;
                assertTrue(take > 0, "cannot fill device memory: " + e.getMessage());
            }
        }
        return free();
    }

    private static double[] doubles(Random r, int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = r.nextGaussian();
        }
        return d;
    }

    @Test
    void copyinBeyondFreeMemoryThrowsNamingTheBytesAskedAndFree() {
        long left = fillLeaving(64 * MIB);
        double[] a = new double[N];
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class, () -> Acc.copyin(a));
        assertTrue(e.getMessage().startsWith("acc4j: out of device memory: double[16777216] needs 134217728 bytes"),
                e.getMessage());
        assertEquals(8L * N, e.requested());
        assertTrue(e.free() >= 0 && e.free() < 8L * N, "free " + e.free() + " with " + left + " left");
        assertFalse(Acc.isPresent(a));
        assertTrue(Math.abs(free() - left) <= TOLERANCE, "the failed copyin left memory allocated");
        // with room again, the same array goes in
        hog.close();
        hog = null;
        Acc.copyin(a);
        assertTrue(Acc.isPresent(a));
        Acc.delete(a);
    }

    @Test
    void askingForMoreThanTheDeviceHasThrows() {
        context.makeCurrent();
        long total = context.memInfo().total();
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class,
                () -> new CudaMemory().allocateRaw(total + (1L << 30), "more than the device has"));
        assertEquals(total + (1L << 30), e.requested());
        assertEquals(total, e.total());
        assertTrue(e.getMessage().contains("more than the device has needs"), e.getMessage());
        // the device is fine
        Random r = new Random(31);
        double[] a = doubles(r, 1000);
        double[] b = doubles(r, 1000);
        double[] c = new double[1000];
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {a, b, c, 1000}));
        double[] expected = new double[1000];
        SafetyFixtures.vectorAdd(a, b, expected, 1000);
        assertArrayEquals(expected, c);
    }

    @Test
    void kernelsCallWhoseDataDoesNotFitRunsOnTheHostAndLeaksNothing() {
        Random r = new Random(32);
        double[] a = doubles(r, N);
        double[] b = doubles(r, N);
        double[] c = new double[N];
        // a fits (128 MiB of 200), b does not
        long left = fillLeaving(200 * MIB);
        assertFalse(AccRuntime.offload(SafetyFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {a, b, c, N}),
                "the call cannot fit, so its original body must run");
        assertTrue(Math.abs(free() - left) <= TOLERANCE, "the buffers of the refused call were freed: "
                + (left - free()) / MIB + " MiB still taken");
        assertArrayEquals(new double[N], c, "nothing ran");
        // and with room it runs on the device
        hog.close();
        hog = null;
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {a, b, c, N}));
        double[] expected = new double[N];
        SafetyFixtures.vectorAdd(a, b, expected, N);
        assertArrayEquals(expected, c);
    }

    @Test
    void dataRegionThatDoesNotFitThrowsNamingTheArrayAndFreesTheOthers() {
        // a fresh runtime: what earlier tests of the JVM left (their present arrays, the spare buffers) is not freed
        // between this test's two readings of the free memory
        Acc.shutdown();
        double[] x = new double[N];
        double[] tmp = new double[N];
        double[] y = new double[4 * N];
        // x and tmp fit (256 MiB of 320), y (512 MiB) does not
        long left = fillLeaving(320 * MIB);
        OutOfDeviceMemoryException e = assertThrows(OutOfDeviceMemoryException.class,
                () -> AccRuntime.enterData(SafetyFixtures.class, "pipeline", SafetyFixtures.descriptor("pipeline"),
                        null, new Object[] {x, tmp, y, N}));
        assertTrue(e.getMessage().startsWith("acc4j: out of device memory: double[67108864] (the array y named in @Data"
                + " of SafetyFixtures.pipeline) needs 536870912 bytes"), e.getMessage());
        assertFalse(Acc.isPresent(x));
        assertFalse(Acc.isPresent(tmp));
        assertTrue(Math.abs(free() - left) <= TOLERANCE, "x and tmp were freed");
    }

    @Test
    void tenThousandKernelCallsWithFreshArraysLeaveDeviceMemoryWhereItStarted() {
        Random r = new Random(33);
        // warm-up: modules loaded, error record and reduction scratch allocated
        run(r);
        long start = free();
        for (int k = 0; k < 10_000; k++) {
            run(r);
        }
        long end = free();
        assertTrue(Math.abs(end - start) <= TOLERANCE, "10^4 calls moved free device memory by "
                + (start - end) / MIB + " MiB");
    }

    /** One vector add on fresh arrays and one dot product, both checked. */
    private static void run(Random r) {
        int n = 1 + r.nextInt(8192);
        double[] a = doubles(r, n);
        double[] b = doubles(r, n);
        double[] c = new double[n];
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {a, b, c, n}));
        double[] expected = new double[n];
        SafetyFixtures.vectorAdd(a, b, expected, n);
        assertArrayEquals(expected, c);
        long[] x = ThreadsGpuTest.longs(r, n);
        Object[] dot = AccRuntime.offloadValue(SafetyFixtures.class, "dot", "([J[JI)J", null, new Object[] {x, x, n});
        assertEquals(SafetyFixtures.dot(x, x, n), dot[0]);
    }

    @Test
    void tenThousandDataRegionsWithFreshArraysLeaveDeviceMemoryWhereItStarted() {
        Random r = new Random(34);
        region(r);
        long start = free();
        for (int k = 0; k < 10_000; k++) {
            region(r);
        }
        long end = free();
        assertTrue(Math.abs(end - start) <= TOLERANCE, "10^4 data regions moved free device memory by "
                + (start - end) / MIB + " MiB");
    }

    private static void region(Random r) {
        int n = 1 + r.nextInt(8192);
        double[] x = doubles(r, n);
        double[] tmp = new double[n];
        double[] y = new double[n];
        Object token = AccRuntime.enterData(SafetyFixtures.class, "pipeline", "([D[D[DI)V", null,
                new Object[] {x, tmp, y, n});
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "scale", "([D[DDI)V", null, new Object[] {tmp, x, 3.0, n}));
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "vectorAdd", "([D[D[DI)V", null, new Object[] {tmp, x, y, n}));
        AccRuntime.exitData(token);
        double[] expected = new double[n];
        SafetyFixtures.pipeline(x, new double[n], expected, n);
        assertArrayEquals(expected, y);
    }

    @Test
    void shutdownFreesEveryBufferAndModule() {
        Random r = new Random(35);
        // a first round sets up what the context keeps for itself (local memory for the kernels' stacks)
        Acc.shutdown();
        useEverything(r);
        Acc.shutdown();
        long start = free();
        long used = useEverything(r);
        Acc.shutdown();
        long end = free();
        assertTrue(Math.abs(end - start) <= TOLERANCE, "after shutdown " + (start - end) / MIB
                + " MiB are still taken (" + used / MIB + " MiB were used)");
        // and the runtime starts again on the next use, with nothing present
        assertTrue(Acc.onDevice());
    }

    /**
     * Starts the runtime and leaves data of every kind present (dynamic, structured inside no region, a rank-2 array),
     * kernels loaded and the reduction scratch allocated; returns the device memory this took.
     */
    private long useEverything(Random r) {
        long before = free();
        Acc.init();
        double[] a = doubles(r, N);
        double[] c = new double[N];
        double[][] m = new double[64][];
        for (int i = 0; i < m.length; i++) {
            m[i] = doubles(r, 1000);
        }
        Acc.copyin(a);
        Acc.create(c);
        Acc.copyin((Object) m);
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "scale", "([D[DDI)V", null, new Object[] {c, a, 2.0, N}));
        assertTrue(AccRuntime.offload(SafetyFixtures.class, "scaleRows", "([[DII)V", null, new Object[] {m, 64, 1000}));
        long[] x = ThreadsGpuTest.longs(r, 1000);
        assertEquals(SafetyFixtures.dot(x, x, 1000), AccRuntime.offloadValue(SafetyFixtures.class, "dot", "([J[JI)J",
                null, new Object[] {x, x, 1000})[0]);
        assertTrue(Acc.isPresent(a) && Acc.isPresent(c) && Acc.isPresent(m));
        long used = before - free();
        assertTrue(used >= 2 * 8L * N, "the data is on the device: " + used / MIB + " MiB used");
        return used;
    }
}
