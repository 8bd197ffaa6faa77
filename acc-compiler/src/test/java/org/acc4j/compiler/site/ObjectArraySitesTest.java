package org.acc4j.compiler.site;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Nests over the fields of arrays' objects in rewritten methods ({@link SiteFixturesObjects}): each nest is a site with
 * a device path, and with its kernels interpreted on fields gathered before and written back after each launch, the
 * method gives plain Java's objects and result, every field of every element compared, with host code reading and
 * writing elements' fields between the nests.
 */
class ObjectArraySitesTest {
    @AfterEach
    void reset() {
        TestRuntime.interpret = false;
    }

    private static Object[] bodies(Class<?> c, int n, long seed) throws Exception {
        Class<?> body = Class.forName(c.getName() + "$Body", true, c.getClassLoader());
        Object[] b = (Object[]) java.lang.reflect.Array.newInstance(body, n);
        Random r = new Random(seed);
        var ctor = body.getDeclaredConstructor();
        ctor.setAccessible(true);
        for (int i = 0; i < n; i++) {
            b[i] = ctor.newInstance();
            set(b[i], "x", r.nextGaussian());
            set(b[i], "v", r.nextGaussian());
        }
        return b;
    }

    private static void set(Object o, String name, double v) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.setDouble(o, v);
    }

    private static Object get(Object o, String name) throws Exception {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private static void assertBodies(Object[] expected, Object[] actual) throws Exception {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            for (String f : new String[] {"x", "v", "steps"}) {
                assertEquals(get(expected[i], f), get(actual[i], f), "element " + i + "." + f);
            }
        }
    }

    @Test
    void everyNestHasADevicePath() throws Exception {
        MethodPlan p = SitesTest.plan(SiteFixturesObjects.class, "orbit");
        assertEquals(2, p.sites().size(), String.join("\n", PlanReport.lines(p)));
        for (MethodPlan.Site s : p.sites()) {
            assertTrue(s.compiled() != null, "site at line " + s.line() + " has no device path\n"
                    + String.join("\n", PlanReport.lines(p)));
        }
    }

    @Test
    void aTimeLoopOverFieldsGivesJavasObjects() throws Exception {
        Class<?> plain = SiteFixturesObjects.class;
        Object[] expected = bodies(plain, 300, 9);
        double want = (double) SitesTest.method(plain, "orbit").invoke(null, expected, 0.01, 20);
        TestRuntime.interpret = true;
        int launches = TestRuntime.launches;
        Class<?> c = Class.forName(plain.getName(), true, HostAccessSitesTest.rewritten(plain.getName()));
        Object[] actual = bodies(c, 300, 9);
        double got = (double) SitesTest.method(c, "orbit").invoke(null, actual, 0.01, 20);
        assertEquals(40, TestRuntime.launches - launches, "both nests of every step on the device path");
        assertEquals(want, got);
        assertBodies(expected, actual);
    }

    @Test
    void anArrayOfObjectsInAStaticFieldGivesJavasObjects() throws Exception {
        Class<?> plain = SiteFixturesObjects.class;
        int n = 257;
        Object[] expected = bodies(plain, n, 4);
        SiteFixturesObjects.held = (SiteFixturesObjects.Body[]) expected;
        double[] w = new double[n];
        SitesTest.method(plain, "scale").invoke(null, w, n);
        TestRuntime.interpret = true;
        int launches = TestRuntime.launches;
        Class<?> c = Class.forName(plain.getName(), true, HostAccessSitesTest.rewritten(plain.getName()));
        Object[] actual = bodies(c, n, 4);
        Field held = c.getDeclaredField("held");
        held.setAccessible(true);
        held.set(null, actual);
        double[] w2 = new double[n];
        SitesTest.method(c, "scale").invoke(null, w2, n);
        assertEquals(2, TestRuntime.launches - launches);
        assertArrayEquals(w, w2);
        assertBodies(expected, actual);
    }
}
