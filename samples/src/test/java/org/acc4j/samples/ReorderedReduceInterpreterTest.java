package org.acc4j.samples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link ArrayReduce} kernels with reordered floating-point sums ({@link ReorderedReduceCases}) compiled and run
 * by the kernel interpreter (with its race check), on the multicore target (2 and 5 threads) and as plain Java on the
 * host path, every output element within the bound of plain Java's; the report says how each sum runs.
 */
class ReorderedReduceInterpreterTest {
    private static final List<Multicore> POOLS = List.of(new Multicore(2, null, null), new Multicore(5, null, null));

    @AfterAll
    static void close() {
        POOLS.forEach(Multicore::close);
    }

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
        HostNest hk = HostNest.of(m);
        for (Multicore pool : POOLS) {
            Object[] args = c.copy();
            hk.run(CatalogMulticoreTest::noField, null, args, pool, null);
            c.check(expected, args, "on the multicore target, " + pool.threads() + " threads");
        }
        Object[] host = c.copy();
        method.invoke(null, host);
        c.check(expected, host, "on the host");
    }
}
