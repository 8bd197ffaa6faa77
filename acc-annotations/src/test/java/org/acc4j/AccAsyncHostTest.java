package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.spi.Backend;
import org.junit.jupiter.api.Test;

/**
 * The async routines without the agent (OpenACC's host device: everything is complete when a routine returns), their
 * argument checks, how they reach a backend, and the {@code @Kernels} async elements.
 */
class AccAsyncHostTest {
    @Kernels(async = 3)
    static void onQueue3(double[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = 2 * a[i] + 1;
        }
    }

    @Kernels(asyncParam = "q")
    static void onQueueParam(double[] a, int q) {
        for (int i = 0; i < a.length; i++) {
            a[i] = a[i] * a[i];
        }
    }

    @Test
    void onTheHostEveryRoutineIsCompleteAtOnce() {
        Random random = new Random(7);
        double[] a = random.doubles(1000).toArray();
        double[] expected = a.clone();
        for (int i = 0; i < expected.length; i++) {
            expected[i] = 2 * expected[i] + 1;
        }
        Acc.copyinAsync(0, a);
        Acc.createAsync(Acc.ASYNC_NOVAL, new int[3]);
        Acc.updateDeviceAsync(1, a);
        onQueue3(a);
        // the host device computed it already: nothing to wait for
        assertArrayEquals(expected, a);
        assertTrue(Acc.asyncTest(3));
        assertTrue(Acc.asyncTest(Acc.ASYNC_NOVAL));
        assertTrue(Acc.asyncTestAll());
        Acc.updateHostAsync(1, a);
        Acc.copyoutAsync(0, a);
        Acc.deleteAsync(Acc.ASYNC_SYNC, new float[2][2]);
        Acc.wait(3);
        Acc.wait(Acc.ASYNC_NOVAL);
        Acc.wait(Acc.ASYNC_SYNC);
        Acc.waitAll();
        assertArrayEquals(expected, a);
        double[] b = a.clone();
        onQueueParam(b, 5);
        for (int i = 0; i < b.length; i++) {
            assertEquals(a[i] * a[i], b[i]);
        }
    }

    @Test
    void negativeQueuesOtherThanTheConstantsAreRejected() {
        double[] a = new double[4];
        for (int bad : new int[] {-3, -100, Integer.MIN_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Acc.updateDeviceAsync(bad, a));
            assertEquals("acc4j: Acc.updateDeviceAsync: " + bad + " is not a queue: use 0 or more, Acc.ASYNC_NOVAL (-1,"
                    + " the default queue) or Acc.ASYNC_SYNC (-2, synchronous)", e.getMessage());
            assertTrue(assertThrows(IllegalArgumentException.class, () -> Acc.wait(bad)).getMessage()
                    .startsWith("acc4j: Acc.wait: " + bad + " is not a queue"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> Acc.asyncTest(bad)).getMessage()
                    .startsWith("acc4j: Acc.asyncTest: " + bad + " is not a queue"));
            assertThrows(IllegalArgumentException.class, () -> Acc.copyinAsync(bad, a));
            assertThrows(IllegalArgumentException.class, () -> Acc.createAsync(bad, a));
            assertThrows(IllegalArgumentException.class, () -> Acc.copyoutAsync(bad, a));
            assertThrows(IllegalArgumentException.class, () -> Acc.deleteAsync(bad, a));
            assertThrows(IllegalArgumentException.class, () -> Acc.updateHostAsync(bad, a));
        }
        // arrays are checked as by the synchronous routines
        assertThrows(NullPointerException.class, () -> Acc.updateHostAsync(0, (Object) null));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Acc.copyinAsync(1, "text")).getMessage()
                .contains("java.lang.String"));
    }

    @Test
    void kernelsAnnotationDefaultsToSynchronous() throws Exception {
        Method plain = getClass().getDeclaredMethod("plainKernels");
        assertEquals(Acc.ASYNC_SYNC, plain.getAnnotation(Kernels.class).async());
        assertEquals("", plain.getAnnotation(Kernels.class).asyncParam());
        Method three = getClass().getDeclaredMethod("onQueue3", double[].class);
        assertEquals(3, three.getAnnotation(Kernels.class).async());
        Method param = getClass().getDeclaredMethod("onQueueParam", double[].class, int.class);
        assertEquals("q", param.getAnnotation(Kernels.class).asyncParam());
    }

    @Kernels
    static void plainKernels() {
    }

    @Test
    void routinesReachTheBackendWithTheirQueue() {
        List<String> calls = new ArrayList<>();
        Backend recording = new Recording(calls);
        Backend old = Acc.install(recording);
        try {
            int[] x = new int[2];
            Acc.copyinAsync(2, x);
            Acc.createAsync(Acc.ASYNC_NOVAL, x);
            Acc.updateDeviceAsync(0, x, x);
            Acc.updateHostAsync(Acc.ASYNC_SYNC, x);
            Acc.copyoutAsync(4, x);
            Acc.deleteAsync(5, x);
            Acc.wait(2);
            Acc.wait(Acc.ASYNC_SYNC);
            Acc.asyncTest(1);
            Acc.asyncTestAll();
            Acc.waitAll();
        } finally {
            Acc.install(old);
        }
        assertEquals(List.of("copyin@2", "create@-1", "updateDevice@0", "updateDevice@0", "updateHost", "copyout@4",
                "delete@5", "wait@2", "test@1", "testAll", "waitAll"), calls);
    }

    @Test
    void anOlderBackendRunsAsyncWorkSynchronously() {
        // a backend that implements only the synchronous routines: the SPI's defaults run the work now
        List<String> calls = new ArrayList<>();
        Backend older = new Older(calls);
        older.updateDevice(new int[1], 3);
        older.copyout(new int[1], Acc.ASYNC_NOVAL);
        older.waitQueue(3);
        assertTrue(older.asyncTest(3));
        assertTrue(older.asyncTestAll());
        assertEquals(List.of("updateDevice", "copyout", "waitAll"), calls);
    }

    /** Implements the synchronous routines only. */
    private static class Older implements Backend {
        final List<String> calls;

        Older(List<String> calls) {
            this.calls = calls;
        }

        @Override public String name() { return "older"; }
        @Override public void init() { }
        @Override public void shutdown() { }
        @Override public int deviceCount() { return 0; }
        @Override public boolean onDevice() { return false; }
        @Override public void copyin(Object array) { calls.add("copyin"); }
        @Override public void create(Object array) { calls.add("create"); }
        @Override public void copyout(Object array) { calls.add("copyout"); }
        @Override public void delete(Object array) { calls.add("delete"); }
        @Override public void updateDevice(Object array) { calls.add("updateDevice"); }
        @Override public void updateHost(Object array) { calls.add("updateHost"); }
        @Override public boolean isPresent(Object array) { return true; }
        @Override public void waitAll() { calls.add("waitAll"); }
    }

    /** Records each async routine with its queue. */
    private static final class Recording extends Older {
        Recording(List<String> calls) {
            super(calls);
        }

        @Override public void copyin(Object array, int queue) { calls.add("copyin@" + queue); }
        @Override public void create(Object array, int queue) { calls.add("create@" + queue); }
        @Override public void copyout(Object array, int queue) { calls.add("copyout@" + queue); }
        @Override public void delete(Object array, int queue) { calls.add("delete@" + queue); }
        @Override public void updateDevice(Object array, int queue) { calls.add("updateDevice@" + queue); }
        @Override public void updateHost(Object array, int queue) { calls.add("updateHost@" + queue); }
        @Override public void waitQueue(int queue) { calls.add("wait@" + queue); }
        @Override public boolean asyncTest(int queue) { calls.add("test@" + queue); return true; }
        @Override public boolean asyncTestAll() { calls.add("testAll"); return true; }
    }
}
