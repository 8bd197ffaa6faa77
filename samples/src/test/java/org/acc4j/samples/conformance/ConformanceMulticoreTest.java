package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance sweep ({@link Sweep}) through the runtime where there is no GPU: each nest on the multicore target
 * (its kernel IR as JVM bytecode, in chunks on the host's cores), every element equal to plain Java's (reordered sums
 * and the documented 1-ulp functions within their bounds), Java's exceptions with Java's messages.
 */
class ConformanceMulticoreTest {
    static List<Sweep.Case> cases() {
        return Sweep.cases();
    }

    @BeforeAll
    static void target() {
        Acc.install(AccRuntime.get().backend());
        assumeFalse(AccRuntime.get().onDevice(), "a GPU is in use: ConformanceGpuTest covers it");
    }

    /** A nest runs on the host only for the documented run-time reasons (aliased or null arrays, unproven strides). */
    @Test
    void hostRunsOnlyWhereExpected() throws Exception {
        ConformanceRuntimeCheck.hostRunsOnlyWhereExpected();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void multicoreMatchesPlainJava(Sweep.Case c) throws Exception {
        ConformanceRuntimeCheck.check(c);
    }
}
