package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import org.acc4j.agent.AccAgent;
import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;

/**
 * The sweep through the runtime itself: the fixtures rewritten as the agent rewrites them, their sites calling
 * {@link AccRuntime}, which runs each nest on the GPU, or on the multicore target where there is none; their async
 * {@code @Kernels} methods and {@code @Data} methods wrapped in the agent's own advice ({@link AccAgent#advise}).
 */
final class ConformanceRuntimeCheck {
    private static Sweep.Rewritten loader;

    private ConformanceRuntimeCheck() {
    }

    static synchronized Sweep.Rewritten loader() {
        if (loader == null) {
            loader = new Sweep.Rewritten(AccRuntime::register, Rewriter.RUNTIME,
                    (name, classFile) -> AccAgent.advise(name, classFile, Sweep.class.getClassLoader()));
        }
        return loader;
    }

    static void check(Sweep.Case c) throws Exception {
        assertNull(Sweep.check(c, loader(), AccRuntime.get().onDevice()));
    }

    /**
     * The methods whose nests the runtime ran on the host for a call: aliased or null arrays and red-black SOR's
     * strides (unproven). LINPACK's pivot column, read through a local while the loop writes other rows, runs on
     * the device: the rows the loop writes are known before the launch.
     */
    static final Set<String> HOST_RUNS = Set.of("Constructs.addInto", "Constructs.shiftInPlace",
            "Constructs.nullArray", "Constructs.rowSums", "NumericsStyle.sorRedBlack");

    /** Runs every case, then compares the methods whose nests ran on the host with {@link #HOST_RUNS}. */
    static void hostRunsOnlyWhereExpected() throws Exception {
        for (Sweep.Case c : Sweep.cases()) {
            check(c);
        }
        TreeMap<String, Long> host = new TreeMap<>();
        for (Class<?> k : List.of(Constructs.class, Constructs.Grid.class, Constructs.Scaled.class,
                NumericsStyle.class)) {
            for (java.lang.reflect.Method m : k.getDeclaredMethods()) {
                if (m.isAnnotationPresent(org.acc4j.Kernels.class)) {
                    long[] s = AccRuntime.get().sites().stats(AccRuntime.get().sites().find(k.getName(), m.getName()));
                    if (s[1] > 0) {
                        host.put(k.getSimpleName() + "." + m.getName(), s[1]);
                    }
                }
            }
        }
        assertEquals(new java.util.TreeSet<>(HOST_RUNS), host.navigableKeySet(), () -> "nests run on the host: " + host);
    }
}
