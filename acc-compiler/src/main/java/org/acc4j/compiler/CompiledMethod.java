package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;

/**
 * A {@code @Kernels} method compiled for the device: its kernels in program order, the data clauses of the
 * region around them, and the compiler's report (one line per decision, in the style of -Minfo=accel).
 */
public record CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report) {
    public CompiledMethod {
        kernels = List.copyOf(kernels);
        data = List.copyOf(data);
        report = List.copyOf(report);
    }

    /**
     * The compiler's warnings about kernels it keeps (a loop parallel on the user's word whose writes provably
     * collide), each also in the {@link #report()}.
     */
    public List<String> warnings() {
        return kernels.stream().flatMap(k -> k.region().warnings().stream()).toList();
    }
}
