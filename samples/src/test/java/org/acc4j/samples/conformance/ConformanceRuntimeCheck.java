package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertNull;

import org.acc4j.compiler.site.Rewriter;
import org.acc4j.runtime.AccRuntime;

/**
 * The sweep through the runtime itself: the fixtures rewritten as the agent rewrites them, their sites calling
 * {@link AccRuntime}, which runs each nest on the GPU, or on the multicore target where there is none.
 */
final class ConformanceRuntimeCheck {
    private static Sweep.Rewritten loader;

    private ConformanceRuntimeCheck() {
    }

    static synchronized Sweep.Rewritten loader() {
        if (loader == null) {
            loader = new Sweep.Rewritten(AccRuntime::register, Rewriter.RUNTIME);
        }
        return loader;
    }

    static void check(Sweep.Case c) throws Exception {
        assertNull(Sweep.check(c, loader()));
    }
}
