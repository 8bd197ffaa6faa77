package org.acc4j.runtime.launch;

import java.util.List;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;

/**
 * A launch's grid, from the region's {@link Mapping} and the call's values, and the checks the compiler left
 * to the launch. Stateless.
 */
final class Geometry {
    private Geometry() {
    }

    /**
     * The grid on x, y, z. {@code fullDevice} is the number of blocks of the mapping's size that fill every SM
     * (the cap of a single-loop mapping, whose threads stride over the rest).
     *
     * @param ev an evaluator that has run the region's prologue
     * @return null when the region runs no iteration
     */
    static int[] grid(Region r, Evaluator ev, int fullDevice) {
        Mapping m = r.mapping();
        int[] grid = {1, 1, 1};
        for (int axis = 0; axis < 3; axis++) {
            Mapping.GridDim d = m.grid().get(axis);
            if (d instanceof Mapping.Fixed f) {
                grid[axis] = f.blocks();
            } else if (d instanceof Mapping.FromTrip t) {
                long trip = trip(m.levels().get(t.level()), ev);
                if (trip == 0 && t.level() == 0) {
                    return null;
                }
                long max = t.max() == 0 ? fullDevice : t.max();
                long blocks = trip < 0 ? (axis == 0 ? fullDevice : Math.min(max, 64))
                        : (trip + t.perBlock() - 1) / t.perBlock();
                grid[axis] = (int) Math.max(1, Math.min(blocks, max));
            }
        }
        return grid;
    }

    /** The level's trip count (the product over collapsed loops), or -1 when it depends on the nest. */
    static long trip(Mapping.Level level, Evaluator ev) {
        long total = 1;
        try {
            for (Stmt.For f : level.loops()) {
                long t = Evaluator.tripCount(ev.evalLong(f.lower()), f.cond(), ev.evalLong(f.bound()), f.step());
                total = Math.multiplyExact(total, t);
            }
            return total;
        } catch (Evaluator.NotEvaluable | ArithmeticException e) {
            return -1;
        }
    }

    /** Runs the region's disjointness checks; a failure or an unknown makes the call run on the host. */
    static void check(Region r, Evaluator ev) throws Launcher.HostInstead {
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
