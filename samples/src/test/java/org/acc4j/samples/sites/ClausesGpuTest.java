package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.launch.NotPresentException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The per-call clauses of {@code @Kernels} and {@code Acc.onDevice()} on the GPU, through methods rewritten into launch
 * sites as the agent rewrites them: {@code ifParam} and {@code ifField} false run the call on the host's arrays and
 * leave the device copies alone, true runs the nests on the device; {@code defaultPresent} refuses an array that is
 * not present and moves nothing when all are; {@code Acc.onDevice()} in a kernel is true and keeps the nest on the
 * device. Results equal plain Java's on seeded random inputs.
 */
@Tag("gpu")
class ClausesGpuTest {
    static Class<?> rewritten;

    @BeforeAll
    static void device() throws ClassNotFoundException {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        ClassLoader loader = new ClassLoader(ClausesGpuTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                synchronized (getClassLoadingLock(name)) {
                    if (!name.equals(ClauseGpuFixtures.class.getName())) {
                        return super.loadClass(name, resolve);
                    }
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        byte[] original = SitesGpuTest.bytes(name.replace('.', '/'));
                        byte[] b;
                        try {
                            b = ClassRewriter.rewrite(original, SitesGpuTest::bytes, AccRuntime::register,
                                    Rewriter.RUNTIME, w -> {
                                        throw new AssertionError(w);
                                    });
                        } catch (Exception e) {
                            throw new ClassNotFoundException(name, e);
                        }
                        c = defineClass(name, b, 0, b.length);
                    }
                    return c;
                }
            }
        };
        rewritten = Class.forName(ClauseGpuFixtures.class.getName(), true, loader);
    }

    static Object call(Object target, String name, Object... args) throws Throwable {
        for (Method m : rewritten.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                try {
                    return m.invoke(target, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            }
        }
        throw new AssertionError(name);
    }

    /** {nests on the device, nests on the host} of the rewritten method so far. */
    static long[] nests(String method) {
        long[] s = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(ClauseGpuFixtures.class.getName(),
                method));
        return new long[] {s[0], s[1]};
    }

    static double[] random(long seed, int n) {
        Random r = new Random(seed);
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = r.nextDouble() * 10 - 5;
        }
        return a;
    }

    @Test
    void ifParamTrueRunsOnTheDeviceAndFalseOnTheHostMovingNothing() throws Throwable {
        int n = 100_003;
        double[] a = random(1, n);
        double[] expected = new double[n];
        ClauseGpuFixtures.scaled(a, expected, true);
        double[] out = new double[n];
        call(null, "scaled", a, out, true);
        assertArrayEquals(expected, out);
        long[] after = nests("scaled");
        assertEquals(1, after[0], "nests run on the device");
        double[] host = new double[n];
        call(null, "scaled", a, host, false);
        assertArrayEquals(expected, host);
        assertArrayEquals(after, nests("scaled"), "a false condition launches nothing and counts no host nest");
    }

    @Test
    void aFalseConditionUsesTheHostsArraysAndLeavesTheDeviceCopies() throws Throwable {
        int n = 4099;
        double[] a = random(2, n);
        double[] out = new double[n];
        Acc.copyin(a, out);
        try {
            double[] onDevice = a.clone();
            // the host's copy changes; the device keeps the old values
            for (int i = 0; i < n; i++) {
                a[i] += 1;
            }
            double[] hostA = a.clone();
            call(null, "scaled", a, out, false);
            double[] expected = new double[n];
            ClauseGpuFixtures.scaled(hostA, expected, false);
            assertArrayEquals(expected, out, "the host run sees the host's values");
            Acc.updateHost(a, out);
            assertArrayEquals(onDevice, a, "the device copy of a is untouched");
            assertArrayEquals(new double[n], out, "the device copy of out is untouched");
        } finally {
            Acc.delete(a, out);
        }
    }

    @Test
    void ifFieldIsReadAtEachCall() throws Throwable {
        int n = 7777;
        double[] a = random(3, n);
        double[] expected = new double[n];
        new ClauseGpuFixtures().shifted(a, expected);
        Object self = rewritten.getDeclaredConstructor().newInstance();
        double[] out = new double[n];
        call(self, "shifted", a, out);
        assertArrayEquals(expected, out);
        assertEquals(0, nests("shifted")[0]);
        java.lang.reflect.Field useGpu = rewritten.getDeclaredField("useGpu");
        useGpu.setAccessible(true);
        useGpu.setBoolean(self, true);
        double[] out2 = new double[n];
        call(self, "shifted", a, out2);
        assertArrayEquals(expected, out2);
        assertEquals(1, nests("shifted")[0]);
    }

    @Test
    void defaultPresentRefusesAnArrayThatIsNotPresentAndMovesNothingOtherwise() throws Throwable {
        int n = 20_000;
        double[] a = random(4, n);
        double[] out = new double[n];
        Acc.copyin(a);
        try {
            NotPresentException e = assertThrows(NotPresentException.class, () -> call(null, "present", a, out));
            assertEquals("out", e.array(), e::getMessage);
            assertTrue(e.getMessage().contains("ClauseGpuFixtures.present has defaultPresent = true"), e::getMessage);
            assertTrue(Acc.isPresent(a));
            Acc.create(out);
            call(null, "present", a, out);
            // out is present around the call: its result stays on the device until asked for
            assertArrayEquals(new double[n], out);
            Acc.updateHost(out);
            double[] expected = new double[n];
            ClauseGpuFixtures.present(a, expected);
            assertArrayEquals(expected, out);
        } finally {
            Acc.delete(a);
            if (Acc.isPresent(out)) {
                Acc.delete(out);
            }
        }
    }

    @Test
    void onDeviceInAKernelIsTrueAndTheNestStaysOnTheDevice() throws Throwable {
        int n = 65_537;
        double[] a = random(5, n);
        int[] flag = new int[n];
        double[] out = new double[n];
        call(null, "where", flag, a, out);
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        assertArrayEquals(ones, flag);
        assertArrayEquals(a, out);
        assertEquals(1, nests("where")[0], "the nest ran on the device");
        assertEquals(0, nests("where")[1]);
    }
}
