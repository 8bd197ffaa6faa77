package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Region;

/** The checks the compiler left to the launch. Stateless. */
final class LaunchChecks {
    private LaunchChecks() {
    }

    /**
     * Checks that the region's {@code !=} parallel loops reach their bounds and its strided ones step forward without
     * wrapping around ({@link org.acc4j.compiler.ir.Mapping#checkLoops}), then runs its disjointness checks;
     * a failure or an unknown makes the call run on the host.
     */
    static void check(Region r, Evaluator ev) throws Launcher.HostInstead {
        if (r.mapping() != null && !r.mapping().checkedLoops().isEmpty()) {
            String why;
            try {
                why = r.mapping().checkLoops(ev);
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                why = "the bounds of its != loops or steps cannot be evaluated before the launch (" + e.getMessage() + ")";
            }
            if (why != null) {
                throw new Launcher.HostInstead("loop nest at line " + r.loop().line() + " is not run in parallel for "
                        + "these arguments: " + why);
            }
        }
        List<Disjointness> checks = r.checks();
        for (Disjointness d : checks) {
            String why;
            try {
                why = d.check(ev);
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                why = "the writes to " + d.array().name() + " at line " + d.line()
                        + " cannot be shown disjoint before the launch (" + e.getMessage() + ")";
            }
            if (why != null) {
                throw new Launcher.HostInstead("loop nest at line " + r.loop().line() + " is not parallel for these "
                        + "arguments: " + why);
            }
        }
    }
}
