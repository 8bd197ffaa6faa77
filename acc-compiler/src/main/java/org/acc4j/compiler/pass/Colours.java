package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.ColourPlan;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Lowers a coloured region ({@link Region#colour()}, planned by {@link Increments}) once {@link Parallelism} has
 * mapped it: the outer loop {@code for (e = lo; e < hi; e++) body} becomes {@code for (t = start; t < end; t++) { e =
 * order[t]; body }}, where {@code start} and {@code end} are host values (a colour's range in the colour order) and
 * {@code order} the colour order the runtime makes; the loop keeps its place in the mapping, so thread {@code t} of a
 * launch runs iteration {@code order[start + t]}. Nothing else in the kernel changes: the bounds checks, the error
 * record and the increments, which are plain adds.
 *
 * <p>A region whose outer loop is not a parallel level of its own (a serial region) is not coloured: one thread runs
 * its iterations in Java's order.
 */
public final class Colours {
    private Colours() {
    }

    /**
     * The regions with their coloured loops lowered; {@code notes} gets a line for each plan dropped. The loads of
     * the colour order are new accesses, numbered past {@code lastAccess} and every access of the regions.
     */
    public static List<Region> lower(List<Region> regions, List<String> notes, int lastAccess) {
        int next = lastAccess;
        for (Region r : regions) {
            List<Stmt> all = new ArrayList<>(r.prologue());
            all.add(r.loop());
            next = Math.max(next, Dataflow.lastAccess(all));
        }
        next++;
        List<Region> out = new ArrayList<>();
        for (Region r : regions) {
            ColourPlan c = r.colour();
            if (c == null || c.lowered()) {
                out.add(r);
                continue;
            }
            Mapping m = r.mapping();
            if (m == null || m.levels().isEmpty() || m.levels().get(0).loops().size() != 1
                    || m.levels().get(0).outer() != r.loop() || r.scan() != null) {
                notes.add("line " + r.loop().line() + ": the loop over " + r.loop().index().name()
                        + " is not coloured: it is not a parallel level of its own");
                out.add(r.coloured(null));
                continue;
            }
            Stmt.For f = r.loop();
            Var t = new Var(c.start().slot() + 2, Type.I32, "colourPosition" + r.ordinal());
            List<Stmt> body = new ArrayList<>();
            body.add(new Stmt.Assign(c.item(), new Expr.Load(c.order(), null, new Expr.Local(t), next++), f.line()));
            body.addAll(f.body());
            Stmt.For loop = new Stmt.For(t, new Expr.Local(c.start()), Cond.LT, new Expr.Local(c.end()), 1, f.spec(),
                    body, f.line(), null);
            List<Mapping.Level> levels = new ArrayList<>(m.levels());
            Mapping.Level first = levels.get(0);
            levels.set(0, new Mapping.Level(List.of(loop), first.gridAxis(), first.blockAxis(), first.why()));
            Mapping mapping = new Mapping(levels, m.block(), m.grid(), m.name());
            List<Var> hostVars = new ArrayList<>(r.hostVars());
            hostVars.add(c.start());
            hostVars.add(c.end());
            out.add(new Region(r.ordinal(), r.prologue(), loop, r.why(), mapping, r.checks(), r.notes(), r.reductions(),
                    hostVars, r.scan(), c.asLowered()));
        }
        return out;
    }
}
