package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.runtime.cuda.Function;

/**
 * A {@code @Kernels} method ready to launch: its plan, its loaded kernels, the variants without the bounds checks
 * the host proves (null where a kernel has none), how to read its sources, and the async queue its calls go on.
 */
record OffloadedMethod(String displayName, CompiledMethod plan, List<Function> functions, List<Function> unchecked,
                       Sources sources, AsyncQueue async) {
    /** A method whose calls are synchronous. */
    OffloadedMethod(String displayName, CompiledMethod plan, List<Function> functions, List<Function> unchecked,
                    Sources sources) {
        this(displayName, plan, functions, unchecked, sources, AsyncQueue.SYNC);
    }

    KernelPlan kernel(int i) {
        return plan.kernels().get(i);
    }

    /** Whether its kernels were loaded into a context since destroyed (after a fault): they must be loaded again. */
    boolean stale() {
        for (Function f : functions) {
            if (f.module().isClosed()) {
                return true;
            }
        }
        for (Function f : unchecked) {
            if (f != null && f.module().isClosed()) {
                return true;
            }
        }
        return false;
    }
}
