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
 * @param notes one line per loop for the compile report: parallel or not, and why
 */
public record Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why, Mapping mapping,
                     List<Disjointness> checks, List<String> notes) {
    public Region {
        prologue = List.copyOf(prologue);
        checks = List.copyOf(checks);
        notes = List.copyOf(notes);
    }

    public Region(int ordinal, List<Stmt> prologue, Stmt.For loop, String why) {
        this(ordinal, prologue, loop, why, null, List.of(), List.of());
    }
}
