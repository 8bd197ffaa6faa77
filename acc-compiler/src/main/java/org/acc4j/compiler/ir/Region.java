package org.acc4j.compiler.ir;

import java.util.List;

/**
 * One compute region: a top-level loop nest of a {@code @Kernels} method and the scalar statements before it
 * that it depends on (re-executed by every thread, since they have no side effects).
 *
 * @param ordinal the region's position in the method (0-based)
 * @param prologue top-level scalar statements before the loop
 * @param loop the loop nest
 * @param why the compiler's reason for running the outer loop in parallel, for the report
 * @param mapping where the parallel loops go on the grid (null until {@code Parallelism} decides)
 * @param checks conditions the runtime checks before a launch, for loops parallelised without the user's word
 * @param notes one line per loop for the compile report: parallel or not, and why; then the {@link #warnings()}
 * @param reductions the scalars the nest accumulates into (see {@link Reduction})
 * @param hostVars locals whose values at the loop the host computes and passes in (they depend on an earlier
 *     region's reduction); the kernel skips the prologue's assignments to them
 * @param scan the scan the loop is, run by the device scan template; null for any other region
 * @param colour how the runtime colours the loop's iterations and launches colour by colour; null for a region that
 *     is not coloured
 */
public record Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why, Mapping mapping,
                     List<Disjointness> checks, List<String> notes, List<Reduction> reductions, List<Var> hostVars,
                     Scan scan, ColourPlan colour) {
    public Region {
        prologue = List.copyOf(prologue);
        checks = List.copyOf(checks);
        notes = List.copyOf(notes);
        reductions = List.copyOf(reductions);
        hostVars = List.copyOf(hostVars);
    }

    public Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why) {
        this(ordinal, prologue, loop, why, null, List.of(), List.of(), List.of(), List.of(), null, null);
    }

    public Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why, Mapping mapping,
                  List<Disjointness> checks, List<String> notes, List<Reduction> reductions, List<Var> hostVars) {
        this(ordinal, prologue, loop, why, mapping, checks, notes, reductions, hostVars, null, null);
    }

    public Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why, Mapping mapping,
                  List<Disjointness> checks, List<String> notes, List<Reduction> reductions, List<Var> hostVars,
                  Scan scan) {
        this(ordinal, prologue, loop, why, mapping, checks, notes, reductions, hostVars, scan, null);
    }

    /** The same region with another loop. */
    public Region withLoop(Stmt.For newLoop) {
        return new Region(ordinal, prologue, newLoop, why, mapping, checks, notes, reductions, hostVars, scan, colour);
    }

    /** The same region, run colour by colour as {@code colour} says. */
    public Region coloured(ColourPlan colour) {
        return new Region(ordinal, prologue, loop, why, mapping, checks, notes, reductions, hostVars, scan, colour);
    }

    /** The same region as decided by the parallelism pass. */
    public Region decided(String why, Mapping mapping, List<Disjointness> checks, List<String> notes) {
        return new Region(ordinal, prologue, loop, why, mapping, checks, notes, reductions, hostVars, scan, colour);
    }

    /** The same region, decided to be {@code scan}. */
    public Region scanned(Scan scan, String why, Mapping mapping, List<String> notes) {
        return new Region(ordinal, prologue, loop, why, mapping, List.of(), notes, reductions, hostVars, scan, colour);
    }

    /** Prefix of a note that warns (a loop parallel on the user's word whose writes provably collide). */
    public static final String WARNING = "warning: ";

    /** The notes that are warnings, in order. */
    public List<String> warnings() {
        return notes.stream().filter(n -> n.startsWith(WARNING)).toList();
    }

    /** The prologue each thread runs: without the assignments to {@link #hostVars}, whose values come from the host. */
    public List<Stmt> devicePrologue() {
        return hostVars.isEmpty() ? prologue : without(prologue, java.util.Set.copyOf(hostVars));
    }

    /**
     * Why this region's kernels may not run for the values {@code ev} holds, or null: the device prologue is run on
     * them first, then the region's {@code !=} and strided loops and its disjointness checks are evaluated, as the
     * GPU path does before a launch. {@code moment} names that moment in the reason ("the launch", "the run").
     */
    public String hostReason(Evaluator ev, String moment) {
        try {
            ev.run(devicePrologue());
        } catch (Evaluator.NotEvaluable e) {
            // the checks below say what they cannot evaluate
        }
        if (!mapping.checkedLoops().isEmpty()) {
            String why;
            try {
                why = mapping.checkLoops(ev);
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                why = "the bounds of its != loops or steps cannot be evaluated before " + moment + " ("
                        + e.getMessage() + ")";
            }
            if (why != null) {
                return why;
            }
        }
        for (Disjointness d : checks) {
            try {
                String why = d.check(ev);
                if (why != null) {
                    return why;
                }
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                return "cannot be checked: " + e.getMessage();
            }
        }
        return null;
    }

    /** {@code stmts} without their assignments to {@code vars} (inside ifs too). */
    public static List<Stmt> without(List<Stmt> stmts, java.util.Set<Var> vars) {
        List<Stmt> out = new java.util.ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a && vars.contains(a.var())) {
                continue;
            }
            if (s instanceof Stmt.If i) {
                out.add(new Stmt.If(i.cond(), without(i.then(), vars), without(i.otherwise(), vars), i.line()));
            } else {
                out.add(s);
            }
        }
        return out;
    }
}
