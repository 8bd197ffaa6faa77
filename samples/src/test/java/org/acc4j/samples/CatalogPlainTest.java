package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.acc4j.Kernels;
import org.acc4j.samples.Catalog.Entry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The catalogue's wiring, without the agent (every kernel runs as plain Java): each entry's kernel and reference
 * agree bit for bit on copies of the same seeded arguments and write something, and each names a real
 * {@code @Kernels} method.
 */
class CatalogPlainTest {
    static final long SEED = 20131;

    static List<Entry> entries() {
        return Catalog.entries();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void kernelMatchesReferenceInPlainJava(Entry e) throws Exception {
        for (int scale = 1; scale <= 2; scale++) {
            Object[] args = e.args(SEED, scale);
            Object[] expected = Catalog.deepCopy(args);
            e.kernelMethod().invoke(null, args);
            e.referenceMethod().invoke(null, expected);
            assertNull(Catalog.firstDifference(expected, args), e.name() + " at scale " + scale);
            assertTrue(Catalog.anyOutputNonZero(e, args), () -> e.name() + " wrote nothing");
            assertNull(Catalog.firstDifference(e.args(SEED, scale), e.args(SEED, scale)),
                    () -> e.name() + ": the same seed gives different arguments");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void namesAKernelsMethodAndAPlainReference(Entry e) {
        Method kernel = e.kernelMethod();
        Method reference = e.referenceMethod();
        assertTrue(kernel.isAnnotationPresent(Kernels.class), e.kernel() + " is not @Kernels");
        assertFalse(reference.isAnnotationPresent(Kernels.class), e.reference() + " is @Kernels");
        for (Method m : List.of(kernel, reference)) {
            assertTrue(Modifier.isStatic(m.getModifiers()), m + " is not static");
            assertEquals(void.class, m.getReturnType(), m + " returns a value");
        }
        assertEquals(Arrays.asList(kernel.getParameterTypes()), Arrays.asList(reference.getParameterTypes()),
                e.name() + ": kernel and reference take different parameters");
        Object[] args = e.args(SEED, 1);
        Class<?>[] types = kernel.getParameterTypes();
        assertEquals(types.length, args.length, e.name() + ": argument count");
        for (int i = 0; i < types.length; i++) {
            Class<?> boxed = types[i] == int.class ? Integer.class : types[i] == double.class ? Double.class : types[i];
            assertTrue(boxed.isInstance(args[i]), e.name() + ": argument " + i + " is not a " + types[i]);
        }
        for (int out : e.outputs()) {
            assertTrue(args[out] instanceof double[] || args[out] instanceof double[][],
                    e.name() + ": output " + out + " is not an array");
            assertFalse(Catalog.anyOutputNonZero(new Entry(e.name(), e.owner(), e.kernel(), e.reference(),
                    List.of(out), e.factory()), args), e.name() + ": output " + out + " does not start zeroed");
        }
    }

    @Test
    void namesAreUniqueAndEveryKernelIsListed() {
        Set<String> names = new HashSet<>();
        Set<String> listed = new HashSet<>();
        for (Entry e : Catalog.entries()) {
            assertTrue(names.add(e.name()), "two entries named " + e.name());
            assertTrue(listed.add(e.owner().getSimpleName() + "." + e.kernel()), "two entries for " + e.kernel());
        }
        for (Class<?> c : List.of(Jacobi.class, Dgemm.class, Gaussblur.class, Transpose.class, Stencil.class,
                Laplacian.class, Wave13pt.class)) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Kernels.class)) {
                    assertTrue(listed.contains(c.getSimpleName() + "." + m.getName()),
                            c.getSimpleName() + "." + m.getName() + " is not in the catalogue");
                }
            }
        }
        assertEquals(72, names.size());
        assertEquals("jacobi.flat.map2_3", Catalog.get("jacobi.flat.map2_3").name());
    }

    @Test
    void deepCopySharesNoArray() {
        Object[] args = Catalog.get("jacobi.2d.default").args(SEED, 1);
        Object[] copy = Catalog.deepCopy(args);
        assertNotSame(args[0], copy[0]);
        assertNotSame(((double[][]) args[0])[0], ((double[][]) copy[0])[0]);
        assertNull(Catalog.firstDifference(args, copy));
        ((double[][]) copy[0])[3][5] += 1;
        assertTrue(Catalog.firstDifference(args, copy).startsWith("argument 0 row 3 [5]"));
    }
}
