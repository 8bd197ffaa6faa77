package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.runtime.launch.Offloader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link Reduce} kernel compiled and run by the interpreter (each thread's private accumulator, then the
 * device's combining order through the templates' Java mirror), against plain Java, with grids small enough
 * that threads stride and large enough for many blocks.
 */
class ReduceInterpreterTest {
    static List<ReduceCases.Case> cases() {
        return ReduceCases.cases(42, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void interpretedReductionMatchesPlainJava(ReduceCases.Case c) throws Exception {
        CompiledMethod m = CatalogInterpreterTest.compile(c.method());
        assertFalse(m.kernels().get(0).region().reductions().isEmpty(), c + ": no reduction found");
        String desc = java.lang.invoke.MethodType.methodType(c.method().getReturnType(),
                c.method().getParameterTypes()).toMethodDescriptorString();
        Object[] plainArgs = c.copy();
        Object expected = c.method().invoke(null, plainArgs);
        for (int maxBlocks : new int[] {1, 3, 40}) {
            Object[] args = c.copy();
            Object actual = Offloader.javaValue(KernelInterpreter.run(m, args, maxBlocks), desc);
            c.check(expected, actual, plainArgs, args, "with " + maxBlocks + " blocks per axis at most");
            // the same launch shape gives the same bits
            Object[] again = c.copy();
            assertEquals(actual, Offloader.javaValue(KernelInterpreter.run(m, again, maxBlocks), desc), c + " twice");
        }
    }
}
