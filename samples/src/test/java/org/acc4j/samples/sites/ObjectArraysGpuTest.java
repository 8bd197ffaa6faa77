package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.Field;
import java.util.Random;
import org.acc4j.Acc;
import org.acc4j.compiler.site.RewritingLoader;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Nests over the fields of arrays' objects, rewritten into launch sites as the agent rewrites them, on the GPU: each
 * field the kernels use is gathered into an array before a launch and written back after it, so the objects equal
 * plain Java's, every field of every element compared bit for bit; a call with one object twice where a field is
 * written, or with a null element, runs as plain Java and gives Java's objects or exception.
 */
@Tag("gpu")
class ObjectArraysGpuTest {
    static ClassLoader loader;

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
        loader = new RewritingLoader(ObjectArraysGpuTest.class.getClassLoader(), ObjectArrayGpuFixtures.class.getName(),
                AccRuntime::register, Rewriter.RUNTIME);
    }

    static Class<?> type(String nested) throws ClassNotFoundException {
        return Class.forName(ObjectArrayGpuFixtures.class.getName() + (nested.isEmpty() ? "" : "$" + nested), true,
                loader);
    }

    static long[] stats(String method) {
        return AccRuntime.get().sites().stats(AccRuntime.get().sites().find(ObjectArrayGpuFixtures.class.getName(),
                method));
    }

    /** {@code n} bodies of class {@code c} (of the plain or the rewritten loader), random from {@code seed}. */
    static Object[] bodies(Class<?> c, int n, long seed) throws Exception {
        Object[] b = (Object[]) java.lang.reflect.Array.newInstance(c, n);
        Random r = new Random(seed);
        for (int i = 0; i < n; i++) {
            b[i] = c.getDeclaredConstructor().newInstance();
            for (String f : new String[] {"x", "y", "vx", "vy"}) {
                c.getField(f).setDouble(b[i], r.nextGaussian());
            }
            c.getField("mass").setFloat(b[i], r.nextFloat());
            c.getField("steps").setInt(b[i], r.nextInt(10));
            if (c.getSimpleName().equals("Star")) {
                c.getField("id").setLong(b[i], r.nextLong());
            }
        }
        return b;
    }

    static void assertBodies(Object[] expected, Object[] actual) throws Exception {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            for (Field f : expected[i].getClass().getFields()) {
                Object want = f.get(expected[i]);
                Object got = actual[i].getClass().getField(f.getName()).get(actual[i]);
                assertEquals(want, got, "element " + i + "." + f.getName());
            }
        }
    }

    @Test
    void nBodyStepsOnFieldsGiveJavasBodies() throws Throwable {
        int n = 1000;
        int steps = 10;
        Object[] expected = bodies(ObjectArrayGpuFixtures.Body.class, n, 7);
        double[] ax = new double[n];
        double[] ay = new double[n];
        double want = ObjectArrayGpuFixtures.orbit((ObjectArrayGpuFixtures.Body[]) expected, ax, ay, 0.001, steps);
        Object[] actual = bodies(type("Body"), n, 7);
        double[] ax2 = new double[n];
        double[] ay2 = new double[n];
        double got = (double) SitesGpuTest.call(null, type(""), "orbit", actual, ax2, ay2, 0.001, steps);
        assertEquals(want, got);
        assertArrayEquals(ax, ax2);
        assertArrayEquals(ay, ay2);
        assertBodies(expected, actual);
        long[] s = stats("orbit");
        assertEquals(2L * steps, s[0], "nests run on the device");
        assertEquals(0, s[1], "nests run on the host");
    }

    @Test
    void subclassFieldsFromOneArrayIntoAnother() throws Throwable {
        int n = 100_003;
        Object[] from = bodies(ObjectArrayGpuFixtures.Star.class, n, 8);
        Object[] to = bodies(ObjectArrayGpuFixtures.Star.class, n, 9);
        ObjectArrayGpuFixtures.copy((ObjectArrayGpuFixtures.Star[]) from, (ObjectArrayGpuFixtures.Star[]) to, n);
        Object[] from2 = bodies(type("Star"), n, 8);
        Object[] to2 = bodies(type("Star"), n, 9);
        SitesGpuTest.call(null, type(""), "copy", from2, to2, n);
        assertBodies(from, from2);
        assertBodies(to, to2);
        assertEquals(1, stats("copy")[0], "the nest on the device");
    }

    @Test
    void oneObjectTwiceWhereAFieldIsWrittenRunsAsPlainJava() throws Throwable {
        int n = 5000;
        Object[] expected = bodies(ObjectArrayGpuFixtures.Body.class, n, 10);
        expected[77] = expected[12];
        ObjectArrayGpuFixtures.kick((ObjectArrayGpuFixtures.Body[]) expected, 0.5);
        Object[] actual = bodies(type("Body"), n, 10);
        actual[77] = actual[12];
        long[] before = stats("kick");
        SitesGpuTest.call(null, type(""), "kick", actual, 0.5);
        assertBodies(expected, actual);
        long[] after = stats("kick");
        assertEquals(before[0], after[0], "not on the device");
        assertEquals(before[1] + 1, after[1], "the nest ran on the host");

        Object[] distinct = bodies(type("Body"), n, 10);
        Object[] plain = bodies(ObjectArrayGpuFixtures.Body.class, n, 10);
        ObjectArrayGpuFixtures.kick((ObjectArrayGpuFixtures.Body[]) plain, 0.5);
        SitesGpuTest.call(null, type(""), "kick", distinct, 0.5);
        assertBodies(plain, distinct);
        assertEquals(after[0] + 1, stats("kick")[0], "distinct elements: on the device");
    }

    @Test
    void aNullElementGivesJavasException() throws Throwable {
        Object[] plain = bodies(ObjectArrayGpuFixtures.Body.class, 300, 11);
        plain[200] = null;
        NullPointerException want = assertThrows(NullPointerException.class,
                () -> ObjectArrayGpuFixtures.kick((ObjectArrayGpuFixtures.Body[]) plain, 0.5));
        Object[] actual = bodies(type("Body"), 300, 11);
        actual[200] = null;
        NullPointerException got = assertThrows(NullPointerException.class,
                () -> SitesGpuTest.call(null, type(""), "kick", actual, 0.5));
        assertEquals(want.getMessage(), got.getMessage());
        for (int i = 0; i < 300; i++) {
            if (plain[i] != null) {
                assertEquals(plain[i].getClass().getField("vx").get(plain[i]),
                        actual[i].getClass().getField("vx").get(actual[i]), "element " + i);
            }
        }
    }
}
