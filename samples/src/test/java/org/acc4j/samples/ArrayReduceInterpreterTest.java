package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link ArrayReduce} and {@link PrivateData} kernel compiled and run by the kernel interpreter (the device's thread mapping, with
 * its race check: an array reduction's atomic updates are the only accesses of its array) against plain Java,
 * every element of every array compared, with grids small enough that threads stride and large enough for many
 * blocks; and the method itself run as plain Java, the host path, gives the same.
 */
class ArrayReduceInterpreterTest {
    static List<ArrayReduceCases.Case> cases() {
        return ArrayReduceCases.cases(16, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void interpretedMatchesPlainJava(ArrayReduceCases.Case c) throws Exception {
        CompiledMethod m = CatalogInterpreterTest.compile(c.method());
        String name = c.method().getName();
        if (c.method().getDeclaringClass() == PrivateData.class) {
            assertTrue(m.report().stream().anyMatch(l -> l.contains("is private to each iteration")), () -> name
                    + ": the report names no private array: " + m.report());
        } else if (!name.startsWith("row")) {
            assertTrue(m.report().stream().anyMatch(l -> l.contains("[...]) into")), () -> name
                    + ": the report names no array reduction: " + m.report());
        }
        Object[] expected = c.copy();
        c.method().invoke(null, expected);
        for (int maxBlocks : new int[] {1, 3, 40}) {
            Object[] args = c.copy();
            KernelInterpreter.run(m, args, maxBlocks);
            c.check(expected, args, "interpreted with " + maxBlocks + " blocks per axis at most");
        }
        Object[] host = c.copy();
        c.method().invoke(null, host);
        c.check(expected, host, "on the host");
    }
}
