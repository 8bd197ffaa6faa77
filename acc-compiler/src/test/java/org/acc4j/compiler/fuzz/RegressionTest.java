package org.acc4j.compiler.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.TestClasses;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Every failure the differential fuzzer found, minimised to a kernel of {@link Regressions}. A test of an open bug
 * is {@code @Disabled} with the bug in one line; enabling it is the check of the fix.
 */
class RegressionTest {
    private static Compiler.Result compile(String name) {
        Method m = Arrays.stream(Regressions.class.getMethods()).filter(x -> x.getName().equals(name)).findFirst()
                .orElseThrow();
        String desc = MethodType.methodType(void.class, m.getParameterTypes()).toMethodDescriptorString();
        return Compiler.compile(TestClasses.bytes(Regressions.class), name, desc, Harness.SM);
    }

    private static CompiledMethod offload(String name) {
        Compiler.Result r = compile(name);
        return assertInstanceOf(Compiler.Offload.class, r, () -> name + " stays on the host: " + r).method();
    }

    private static double[] ramp(int n) {
        double[] a = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = (i % 3) - 1.0;
        }
        return a;
    }

    @Test
    @Disabled("bug: o[i] = o[i] + (b[i] > 0 ? 1.0 : 2.0) stays on the host: the store after the ?: is taken for "
            + "another subscript of o (missed parallelism; the host result is right)")
    void aSelectInAReadModifyWriteIsParallel() {
        CompiledMethod m = offload("selectInReadModifyWrite");
        double[] plain = ramp(300);
        double[] device = plain.clone();
        Regressions.selectInReadModifyWrite(plain, ramp(300), 300);
        KernelInterpreter.run(m, new Object[] {device, ramp(300), 300}, 2);
        assertArrayEquals(plain, device);
    }

    @Test
    @Disabled("bug: o[i] += b[i] > 0 ? 1.0 : 2.0 stays on the host: the store after the ?: is taken for another "
            + "subscript of o (missed parallelism; the host result is right)")
    void aSelectInACompoundAssignmentIsParallel() {
        offload("selectInCompoundAssignment");
    }

    @Test
    void aSelectBeforeTheReadModifyWriteIsParallel() {
        offload("selectBeforeReadModifyWrite");
    }

    @Test
    void theInterpreterThrowsJavasOutOfBoundsMessage() {
        CompiledMethod m = offload("readPastTheEnd");
        ArrayIndexOutOfBoundsException java = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> Regressions.readPastTheEnd(new double[8], new double[8], 8));
        ArrayIndexOutOfBoundsException interpreted = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {new double[8], new double[8], 8}, 2));
        assertEquals(java.getMessage(), interpreted.getMessage());
    }

    @Test
    void aColumnReadAfterAnotherArrayIsMarched() {
        CompiledMethod m = offload("columnReadAfterAnotherArray");
        org.acc4j.compiler.KernelPlan.Unchecked u = m.kernels().get(0).unchecked();
        assertTrue(u != null && u.marched() != null, () -> "not marched: " + m.report());
        java.util.Random r = new java.util.Random(42);
        int n = 37;
        int w = 35;
        double[] a = r.doubles(n * w).toArray();
        double[] b = r.doubles(n * w).toArray();
        double[] plain = new double[n * w];
        double[] interpreted = new double[n * w];
        Regressions.columnReadAfterAnotherArray(a, b, plain, n, w);
        KernelInterpreter.run(m, new Object[] {a, b, interpreted, n, w}, 2);
        assertArrayEquals(plain, interpreted);
    }

    @Test
    void theInterpreterThrowsJavasMessageForARowOutOfRange() {
        CompiledMethod m = offload("rowBelowTheFirst");
        ArrayIndexOutOfBoundsException java = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> Regressions.rowBelowTheFirst(new double[4][3], new double[4][3], 4, 3));
        ArrayIndexOutOfBoundsException interpreted = assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> KernelInterpreter.run(m, new Object[] {new double[4][3], new double[4][3], 4, 3}, 2));
        assertEquals(java.getMessage(), interpreted.getMessage());
    }
}
