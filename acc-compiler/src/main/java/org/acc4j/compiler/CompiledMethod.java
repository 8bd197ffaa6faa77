package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Var;

/**
 * A {@code @Kernels} method compiled for the device: its kernels in program order, the data clauses of the
 * region around them, and the compiler's report (one line per decision, in the style of -Minfo=accel).
 *
 * @param outputs the variables whose values at the end a call gives back (a launch site's live-out locals), in
 *     order; empty for a method whose value is its {@code return}
 */
public record CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report,
                             List<Var> outputs) {
    public CompiledMethod {
        kernels = List.copyOf(kernels);
        data = List.copyOf(data);
        report = List.copyOf(report);
        outputs = List.copyOf(outputs);
    }

    public CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report) {
        this(body, kernels, data, report, List.of());
    }

    /**
     * The compiler's warnings about kernels it keeps (a loop parallel on the user's word whose writes provably
     * collide), each also in the {@link #report()}.
     */
    public List<String> warnings() {
        return kernels.stream().flatMap(k -> k.region().warnings().stream()).toList();
    }
}
