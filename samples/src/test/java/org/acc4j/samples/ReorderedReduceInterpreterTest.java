package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link ArrayReduce} kernels with reordered floating-point sums ({@link ReorderedReduceCases}) compiled and run
 * by the kernel interpreter (with its race check) and as plain Java on the host path, every output element within
 * the bound of plain Java's; the report says how each sum runs.
 */
class ReorderedReduceInterpreterTest {
    static List<ReorderedReduceCases.Case> cases() {
        return ReorderedReduceCases.cases(18, 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void interpretedIsWithinTheBoundOfPlainJava(ReorderedReduceCases.Case c) throws Exception {
        var method = ReorderedReduceCases.method(c.method());
        CompiledMethod m = CatalogInterpreterTest.compile(method);
        String note = c.method().equals("weightedSums") ? "each update is an atomic add on the element"
                : "a vector reduction per row: 32 lanes per row";
        assertTrue(m.report().stream().anyMatch(l -> l.contains(note)), () -> c + ": " + m.report());
        Object[] expected = c.copy();
        method.invoke(null, expected);
        for (int maxBlocks : new int[] {1, 3, 40}) {
            Object[] args = c.copy();
            KernelInterpreter.run(m, args, maxBlocks);
            c.check(expected, args, "interpreted with " + maxBlocks + " blocks per axis at most");
        }
        Object[] host = c.copy();
        method.invoke(null, host);
        c.check(expected, host, "on the host");
    }
}
