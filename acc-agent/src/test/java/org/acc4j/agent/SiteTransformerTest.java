package org.acc4j.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.Test;
import tiny.Tiny;

/**
 * The transformer the agent installs, applied to a tiny class as the JVM would apply it at load time: the rewritten
 * class is defined in a loader of its own and called, and its results are compared with the class loaded plainly.
 * The runtime runs with {@code acc.device.type=host}, so that the rewritten nests take the plain-Java path, one
 * thread, on every machine (a reduction is then Java's sum, bit for bit).
 */
class SiteTransformerTest {
    @org.junit.jupiter.api.BeforeAll
    static void hostPath() {
        AccRuntime.get().shutdown();
        System.setProperty("acc.device.type", "host");
    }

    @org.junit.jupiter.api.AfterAll
    static void defaults() {
        AccRuntime.get().shutdown();
        System.clearProperty("acc.device.type");
    }

    private final List<MethodPlan> plans = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final SiteTransformer transformer = new SiteTransformer(p -> {
        plans.add(p);
        return AccRuntime.register(p);
    }, warnings::add);

    private static byte[] bytes(String internalName) throws IOException {
        try (InputStream in = SiteTransformerTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in.readAllBytes();
        }
    }

    /** Defines {@code tiny.Tiny} from the given bytes; everything else comes from the test's loader. */
    private static Class<?> define(byte[] bytes) {
        try {
            return Class.forName("tiny.Tiny", true, new OneClassLoader(bytes));
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    private static final class OneClassLoader extends ClassLoader {
        private final byte[] bytes;

        OneClassLoader(byte[] bytes) {
            super(SiteTransformerTest.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals("tiny.Tiny")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }

    private Class<?> rewritten() throws IOException {
        byte[] out = transformer.transform(getClass().getClassLoader(), "tiny/Tiny", null, null, bytes("tiny/Tiny"));
        assertNotNull(out, "a class with @Kernels methods is rewritten: " + warnings);
        return define(out);
    }

    @Test
    void aRewrittenMethodGivesPlainJavasResult() throws Exception {
        Class<?> c = rewritten();
        assertEquals(2, plans.size(), "one plan per @Kernels method");
        Random r = new Random(42);
        int n = 3001;
        double[] a = r.doubles(n + 8).toArray();
        double[] b1 = new double[n];
        double[] b2 = new double[n];
        double expect = Tiny.scaleAndSum(a, b1, n, 1.5);
        Method m = c.getMethod("scaleAndSum", double[].class, double[].class, int.class, double.class);
        double got = (double) m.invoke(null, a, b2, n, 1.5);
        assertEquals(Double.doubleToLongBits(expect), Double.doubleToLongBits(got));
        assertArrayEquals(b1, b2);
        assertEquals(List.of(), warnings);
    }

    @Test
    void hostCodeAndJavasExceptionsStayAsWritten() throws Exception {
        Class<?> c = rewritten();
        Object t = c.getConstructor().newInstance();
        Method shifted = c.getMethod("shifted", double[].class, double[].class, int.class, int.class);
        double[] a = new Random(7).doubles(100).toArray();
        double[] b = new double[90];
        shifted.invoke(t, a, b, 90, 10);
        for (int i = 0; i < 90; i++) {
            assertEquals(a[i + 10] * 2, b[i]);
        }
        InvocationTargetException e = org.junit.jupiter.api.Assertions.assertThrows(InvocationTargetException.class,
                () -> shifted.invoke(t, a, new double[90], 90, 11));
        Tiny plain = new Tiny();
        Exception expect = org.junit.jupiter.api.Assertions.assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> plain.shifted(a, new double[90], 90, 11));
        assertEquals(expect.getClass(), e.getCause().getClass());
        assertEquals(expect.getMessage(), e.getCause().getMessage());
        assertEquals(2L, c.getMethod("calls").invoke(t), "the field write before the nest ran on both calls");
    }

    @Test
    void aLoopInAnotherClassGetsAnImplicitRegionAndTheKernelsClassIsReportedInstalled() throws Exception {
        List<String> notes = new ArrayList<>();
        List<String> installed = new ArrayList<>();
        SiteTransformer loops = new SiteTransformer(AccRuntime::register, warnings::add, notes::add,
                installed::addAll, true);
        ClassLoader test = SiteTransformerTest.class.getClassLoader();
        assertNotNull(loops.transform(test, "tiny/Tiny", null, null, bytes("tiny/Tiny")));
        assertTrue(installed.contains("tiny/Tiny.scaleAndSum([D[DID)D"), installed::toString);
        byte[] rewritten = loops.transform(test, "tiny/TinyLoop", null, null, bytes("tiny/TinyLoop"));
        assertNotNull(rewritten, "the caller's loop is wrapped");
        assertEquals(List.of("TinyLoop.repeat, the loop at line 7: an implicit data region keeps a, b on the device"
                + " across its calls", "TinyLoop.watched, the loop at line 19: an implicit data region keeps a, b on"
                + " the device across its calls; the host's element reads (line 22) and writes (line 24) are kept"
                + " coherent: an array or row a kernel may have changed is copied to the host before it is read, the"
                + " elements written go to the device before the next call"), notes);
        assertNull(new SiteTransformer(AccRuntime::register, warnings::add).transform(test, "tiny/TinyLoop", null,
                null, bytes("tiny/TinyLoop")), "without implicit regions a class without @Kernels is left alone");
        // the rewritten caller gives plain Java's result (on the host path the region is not made)
        Class<?> c = Class.forName("tiny.TinyLoop", true, new ClassLoader(test) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals("tiny.TinyLoop")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> k = findLoadedClass(name);
                    return k != null ? k : defineClass(name, rewritten, 0, rewritten.length);
                }
            }
        });
        Random r = new Random(9);
        double[] a = new double[100];
        double[] b = new double[100];
        for (int i = 0; i < 100; i++) {
            a[i] = r.nextDouble();
        }
        double[] pa = a.clone();
        double[] pb = b.clone();
        double expected = tiny.TinyLoop.repeat(pa, pb, 100, 5);
        double got = (double) c.getMethod("repeat", double[].class, double[].class, int.class, int.class)
                .invoke(null, a, b, 100, 5);
        assertEquals(expected, got);
        assertArrayEquals(pa, a);
        assertArrayEquals(pb, b);
        // with host reads and writes: the runtime's hooks do nothing where it made no region
        double[] wa = a.clone();
        double[] wb = b.clone();
        double watched = tiny.TinyLoop.watched(pa, pb, 100, 5);
        assertEquals(watched, (double) c.getMethod("watched", double[].class, double[].class, int.class, int.class)
                .invoke(null, wa, wb, 100, 5));
        assertArrayEquals(pa, wa);
        assertArrayEquals(pb, wb);
        assertTrue(warnings.isEmpty(), warnings::toString);
    }

    @Test
    void classesWithoutKernelsAndTheAgentsOwnAreLeftAlone() throws IOException {
        assertNull(transformer.transform(null, "org/acc4j/agent/Main", null, null, bytes("org/acc4j/agent/Main")));
        assertNull(transformer.transform(null, "org/acc4j/agent/SiteTransformerTest", null, null,
                bytes("org/acc4j/agent/SiteTransformerTest")));
        assertTrue(SiteTransformer.ignored("java/lang/String"));
        assertTrue(SiteTransformer.ignored("org/acc4j/runtime/AccRuntime"));
        assertTrue(!SiteTransformer.ignored("tiny/Tiny"));
    }

    @Test
    void aClassThatCannotBeRewrittenLoadsUnchangedAndSaysWhy() throws IOException {
        byte[] good = bytes("tiny/Tiny");
        byte[] broken = java.util.Arrays.copyOf(good, good.length / 2);
        assertNull(transformer.transform(null, "tiny/Tiny", null, null, broken));
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).startsWith("could not rewrite tiny.Tiny ("), warnings.get(0));
        assertTrue(warnings.get(0).endsWith("its @Kernels methods run as plain Java"), warnings.get(0));
    }
}
