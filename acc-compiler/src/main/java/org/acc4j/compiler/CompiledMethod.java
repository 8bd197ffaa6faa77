package org.acc4j.compiler;

import java.util.List;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Var;

/**
 * A {@code @Kernels} method compiled for the device: its kernels in program order, the data clauses of the
 * region around them, and the compiler's report (one line per decision, in the style of -Minfo=accel).
 *
 * @param outputs the variables whose values at the end a call gives back (a launch site's live-out locals), in
 *     order; empty for a method whose value is its {@code return}
 * @param guards what each call checks of its objects before anything is launched ({@link Guards})
 */
public record CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report,
                             List<Var> outputs, Guards guards) {
    public CompiledMethod {
        kernels = List.copyOf(kernels);
        data = List.copyOf(data);
        report = List.copyOf(report);
        outputs = List.copyOf(outputs);
    }

    /**
     * What a call checks of its objects before anything is launched, else it runs as plain Java: the parameters that
     * kernels use as objects ({@code b} of {@code b.data}, or the receiver of an inlined method), which must not be
     * null, and the overridable methods expanded into the kernels, which the classes of {@code this} and of those
     * objects must not override.
     *
     * @param receivers the indices of those parameters
     */
    public record Guards(List<Inliner.Virtual> virtuals, List<Integer> receivers) {
        /** Nothing to check. */
        public static final Guards NONE = new Guards(List.of(), List.of());

        public Guards {
            virtuals = List.copyOf(virtuals);
            receivers = List.copyOf(receivers);
        }
    }

    /** A method whose calls check nothing of their objects. */
    public CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report,
                          List<Var> outputs) {
        this(body, kernels, data, report, outputs, Guards.NONE);
    }

    public CompiledMethod(MethodBody body, List<KernelPlan> kernels, List<DataClause> data, List<String> report) {
        this(body, kernels, data, report, List.of(), Guards.NONE);
    }

    /**
     * The compiler's warnings about kernels it keeps (a loop parallel on the user's word whose writes provably
     * collide), each also in the {@link #report()}.
     */
    public List<String> warnings() {
        return kernels.stream().flatMap(k -> k.region().warnings().stream()).toList();
    }
}
