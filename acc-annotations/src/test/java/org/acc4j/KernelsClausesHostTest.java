package org.acc4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

/**
 * The {@code @Kernels} per-call clauses without the agent: inert (the call is plain Java whatever the condition, and
 * every array counts as present), and {@code Acc.onDevice()} is the host's answer.
 */
class KernelsClausesHostTest {
    @Kernels(ifParam = "gpu", defaultPresent = true)
    static void scaled(double[] a, boolean gpu) {
        for (int i = 0; i < a.length; i++) {
            a[i] = Acc.onDevice() ? -1 : 2 * a[i];
        }
    }

    @Test
    void withoutTheAgentTheClausesAreIgnored() {
        double[] a = {1, 2, 3};
        scaled(a, true);
        assertArrayEquals(new double[] {2, 4, 6}, a);
        scaled(a, false);
        assertArrayEquals(new double[] {4, 8, 12}, a);
        assertFalse(Acc.onDevice());
    }

    @Test
    void theElementsAndTheirDefaults() throws NoSuchMethodException {
        Kernels none = AccAsyncHostTest.class.getDeclaredMethod("onQueue3", double[].class).getAnnotation(Kernels.class);
        assertEquals("", none.ifParam());
        assertEquals("", none.ifField());
        assertFalse(none.defaultPresent());
        Method m = KernelsClausesHostTest.class.getDeclaredMethod("scaled", double[].class, boolean.class);
        Kernels k = m.getAnnotation(Kernels.class);
        assertEquals("gpu", k.ifParam());
        assertEquals("", k.ifField());
        assertTrue(k.defaultPresent());
    }
}
