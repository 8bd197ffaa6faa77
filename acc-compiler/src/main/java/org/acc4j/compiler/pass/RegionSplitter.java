package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Splits a {@code @Kernels} method into compute regions, one per top-level loop nest.
 *
 * <p>Top-level statements other than loops must be scalar computations (assignments, and ifs of them); they
 * become each later region's prologue. A value computed inside one region's loop cannot reach later code
 * (that needs a reduction), and a parameter may not be reassigned inside a loop.
 */
public final class RegionSplitter {
    private RegionSplitter() {
    }

    /** The regions in order, each with its prologue; {@code why} is filled in by {@link Parallelism}. */
    public static List<Region> split(MethodBody m) {
        List<Region> regions = new ArrayList<>();
        List<Stmt> scalar = new ArrayList<>();
        Set<Var> loopAssigned = new HashSet<>();
        for (Stmt s : m.body()) {
            if (s instanceof Stmt.For f) {
                checkNoLeak(scalar, loopAssigned, s.line());
                checkNoLeak(List.of(f), loopAssigned, s.line());
                regions.add(new Region(regions.size(), scalar, f, ""));
                Dataflow.assigned(f.body(), loopAssigned);
                loopAssigned.add(f.index());
            } else if (s instanceof Stmt.Return) {
                continue;
            } else if (isScalar(s)) {
                scalar.add(s);
            } else {
                throw new Unsupported(s.line(), s instanceof Stmt.Store
                        ? "an array store outside a loop (it would run once per thread)"
                        : "a loop inside an if at the top of the method");
            }
        }
        if (regions.isEmpty()) {
            throw new Unsupported(0, "a @Kernels method with no loop");
        }
        return regions;
    }

    private static boolean isScalar(Stmt s) {
        if (s instanceof Stmt.Assign) {
            return true;
        }
        if (s instanceof Stmt.If i) {
            return i.then().stream().allMatch(RegionSplitter::isScalar)
                    && i.otherwise().stream().allMatch(RegionSplitter::isScalar);
        }
        return false;
    }

    /** Rejects reads, in {@code stmts}, of variables that an earlier region's loop computed. */
    private static void checkNoLeak(List<Stmt> stmts, Set<Var> loopAssigned, int line) {
        Set<Var> read = new HashSet<>();
        Dataflow.liveIn(stmts, read);
        for (Var v : read) {
            if (loopAssigned.contains(v)) {
                throw new Unsupported(line, "the variable " + v.name()
                        + " is set inside an earlier parallel loop and used after it");
            }
        }
    }
}
