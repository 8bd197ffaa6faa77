package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance sweep ({@link Sweep}) on the GPU: each method rewritten as the agent rewrites it, its nests
 * launched on the device, every element equal to plain Java's (reordered sums and the documented 1-ulp functions
 * within their bounds), Java's exceptions with Java's messages. Skips, saying why, where there is no device.
 */
@Tag("gpu")
class ConformanceGpuTest {
    static List<Sweep.Case> cases() {
        return Sweep.cases();
    }

    @BeforeAll
    static void device() {
        Acc.install(AccRuntime.get().backend());
        assumeTrue(AccRuntime.get().onDevice(), "no CUDA device here: GPU tests skipped (run them on the GPU machine)");
    }

    /** Prints, for each {@code @Kernels} method of the fixtures, its nests run on the device and on the host. */
    @AfterAll
    static void where() {
        if (!AccRuntime.get().onDevice()) {
            return;
        }
        StringBuilder b = new StringBuilder("conformance: nests run on the device / on the host, per method\n");
        for (Class<?> k : List.of(Constructs.class, Constructs.Grid.class, Constructs.Scaled.class,
                NumericsStyle.class)) {
            for (java.lang.reflect.Method m : k.getDeclaredMethods()) {
                if (m.isAnnotationPresent(org.acc4j.Kernels.class)) {
                    long[] s = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(k.getName(), m.getName()));
                    b.append("  ").append(k.getSimpleName()).append('.').append(m.getName()).append(": ").append(s[0])
                            .append(" / ").append(s[1]).append('\n');
                }
            }
        }
        System.out.print(b);
    }

    /** A nest runs on the host only for the documented run-time reasons (aliased or null arrays, unproven strides). */
    @Test
    void hostRunsOnlyWhereExpected() throws Exception {
        ConformanceRuntimeCheck.hostRunsOnlyWhereExpected();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void deviceMatchesPlainJava(Sweep.Case c) throws Exception {
        ConformanceRuntimeCheck.check(c);
    }
}
