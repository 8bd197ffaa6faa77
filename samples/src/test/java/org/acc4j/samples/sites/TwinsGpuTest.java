package org.acc4j.samples.sites;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two classes with a byte-identical {@code @Kernels} method each get their own kernels (their names differ by class),
 * and one class loaded by two class loaders gets a plan per class.
 */
@Tag("gpu")
class TwinsGpuTest {
    static final String DESC = "([DI)V";

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    static double[] expected(double[] a) {
        double[] e = a.clone();
        for (int i = 0; i < e.length; i++) {
            e[i] = e[i] * 3 + 1;
        }
        return e;
    }

    @Test
    void byteIdenticalMethodsOfTwoClassesBothRunOnTheDevice() {
        double[] a = new java.util.Random(1).doubles(10_001).toArray();
        double[] b = a.clone();
        double[] e = expected(a);
        assertTrue(AccRuntime.offload(TwinA.class, "scale", DESC, null, new Object[] {a, a.length}));
        assertTrue(AccRuntime.offload(TwinB.class, "scale", DESC, null, new Object[] {b, b.length}));
        assertArrayEquals(e, a);
        assertArrayEquals(e, b);
    }

    /** Loads {@link TwinA} itself, not through the parent. */
    static final class Own extends ClassLoader {
        Own() {
            super(TwinsGpuTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.equals(TwinA.class.getName())) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        c = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    @Test
    void oneClassInTwoLoadersHasAPlanPerClass() throws Exception {
        for (int k = 0; k < 2; k++) {
            Class<?> c = Class.forName(TwinA.class.getName(), true, new Own());
            Method m = c.getMethod("scale", double[].class, int.class);
            double[] a = new java.util.Random(k).doubles(4097).toArray();
            double[] e = expected(a);
            assertTrue(AccRuntime.offload(c, "scale", DESC, null, new Object[] {a, a.length}));
            assertArrayEquals(e, a);
            double[] p = a.clone();
            m.invoke(null, p, p.length);
            assertArrayEquals(expected(a), p, "the loaded class itself runs plainly");
        }
    }
}
