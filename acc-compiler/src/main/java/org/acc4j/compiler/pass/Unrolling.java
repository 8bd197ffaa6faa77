package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Full unrolling of the constant-trip loops inside a nest's innermost parallel loop, into straight-line code in
 * single-assignment form: the window loops of a convolution ({@code for (di = 0; di < 5; di++) for (dj = 0; dj < 5;
 * dj++) s += w[di * 5 + dj] * a[(i + di - 2) * n + j + dj - 2];}) become 25 statements whose subscripts are the
 * loop indices plus constants, {@code s} a new local at each step. Its output is what {@link Marching} reads: a
 * stencil whose taps are fixed offsets, each loaded once per step of the marched loop.
 *
 * <p>The shape: the region's parallel levels are a perfect nest of single loops; the innermost one's body holds
 * local assignments, stores, and loops with {@code int} indices, constant bounds and positive constant steps that
 * do not assign their own index (nested the same way), with at most {@link #MAX_COPIES} copies of any statement in
 * all. A local the body assigns is not read before its first assignment in an iteration, nor is an unrolled loop's
 * index read after its loop.
 *
 * <p>Invariants kept: each iteration of the nest runs the same operations on the same values in the same order
 * (an unrolled loop's iterations in their order, each with its index a constant), so results are Java's bit for
 * bit. Each copied load and store is a new access ({@link #copies} names the access it copies): its subscript takes
 * values the original took, so the host's bounds proof of the original covers it.
 */
public final class Unrolling {
    /** The most copies of the innermost parallel loop's statements that unrolling may make. */
    public static final int MAX_COPIES = 64;

    private Unrolling() {
    }

    /**
     * The rewritten region (same ordinal, prologue and checks; the mapping's levels hold the rebuilt loops, and its
     * notes end with {@code note}), and for each new access id the id of the access it copies.
     */
    public record Result(Region region, Map<Integer, Integer> copies, String note) {
    }

    /** {@code region} with its innermost parallel loop's constant-trip loops unrolled, or null when it has none. */
    public static Result unroll(MethodBody body, Region region) {
        Mapping m = region.mapping();
        if (m == null || !region.reductions().isEmpty() || region.scan() != null) {
            return null;
        }
        List<Stmt.For> nest = new ArrayList<>();
        Stmt.For f = region.loop();
        nest.add(f);
        while (f.body().size() == 1 && f.body().get(0) instanceof Stmt.For g && m.levelOf(g) != null) {
            nest.add(g);
            f = g;
        }
        for (Stmt.For l : nest) {
            Mapping.Level level = m.levelOf(l);
            if (level == null || level.loops().size() != 1) {
                return null;
            }
        }
        if (m.levels().size() != nest.size()) {
            return null;
        }
        Stmt.For innermost = nest.get(nest.size() - 1);
        if (innermost.body().stream().noneMatch(s -> s instanceof Stmt.For)) {
            return null;
        }
        List<Stmt> all = new ArrayList<>(body.body());
        all.addAll(region.prologue());
        all.add(region.loop());
        Unrolling pass = new Unrolling(Math.max(Dataflow.lastAccess(body.body()),
                Dataflow.lastAccess(List.of(region.loop()))) + 1, Marching.maxSlot(body, region) + 1);
        List<String> loops = new ArrayList<>();
        List<Stmt> flat = pass.flatten(innermost.body(), Map.of(), loops);
        if (flat == null || flat.size() > MAX_COPIES * Math.max(1, innermost.body().size())) {
            return null;
        }
        List<Stmt> single = pass.singleAssignment(flat);
        if (single == null) {
            return null;
        }
        // the nest rebuilt around the new body, and the mapping's levels on the rebuilt loops
        Map<Stmt.For, Stmt.For> rebuilt = new IdentityHashMap<>();
        List<Stmt> below = single;
        for (int q = nest.size() - 1; q >= 0; q--) {
            Stmt.For l = nest.get(q).withBody(below);
            rebuilt.put(nest.get(q), l);
            below = List.of(l);
        }
        List<Mapping.Level> levels = new ArrayList<>();
        for (Mapping.Level l : m.levels()) {
            levels.add(new Mapping.Level(List.of(rebuilt.get(l.outer())), l.gridAxis(), l.blockAxis(), l.why()));
        }
        Mapping mapping = new Mapping(levels, m.block(), m.grid(), m.name());
        String note = "unrolled the loop" + (loops.size() == 1 ? " over " : "s over ") + String.join(", ", loops)
                + " (constant trip counts: " + flat.size() + " statements per iteration of "
                + innermost.index().name() + ", each a new value, in Java's order)";
        List<String> notes = new ArrayList<>(region.notes());
        notes.add(note);
        Region out = new Region(region.ordinal(), region.prologue(), rebuilt.get(region.loop()), region.why(), mapping,
                region.checks(), notes, region.reductions(), region.hostVars(), region.scan());
        return new Result(out, Map.copyOf(pass.copies), note);
    }

    private int nextAccess;
    private int nextSlot;
    private final Map<Integer, Integer> copies = new HashMap<>();
    private final Set<Var> unrolled = new HashSet<>();

    private Unrolling(int nextAccess, int nextSlot) {
        this.nextAccess = nextAccess;
        this.nextSlot = nextSlot;
    }

    /**
     * {@code stmts} with every loop replaced by its iterations, {@code values} the constants of the enclosing
     * unrolled indices; null when a statement is not of the shape or the copies pass the limit.
     */
    private List<Stmt> flatten(List<Stmt> stmts, Map<Var, Integer> values, List<String> names) {
        List<Stmt> out = new ArrayList<>();
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                out.add(new Stmt.Assign(a.var(), substitute(a.value(), values), a.line()));
            } else if (s instanceof Stmt.Store st && st.row() == null) {
                out.add(new Stmt.Store(st.array(), null, substitute(st.index(), values), substitute(st.value(), values),
                        st.line(), copyOf(st.access())));
            } else if (s instanceof Stmt.For l && l.stride() == null && l.index().type() == Type.I32
                    && l.lower() instanceof Expr.Const lo && l.bound() instanceof Expr.Const hi && l.step() > 0
                    && l.step() <= Integer.MAX_VALUE && !l.spec().annotated()) {
                Set<Var> assigned = new HashSet<>();
                Dataflow.assigned(l.body(), assigned);
                if (assigned.contains(l.index()) || values.containsKey(l.index())
                        || l.cond() != org.acc4j.compiler.ir.Cond.LT && l.cond() != org.acc4j.compiler.ir.Cond.LE) {
                    return null;
                }
                unrolled.add(l.index());
                if (!names.contains(l.index().name())) {
                    names.add(l.index().name());
                }
                for (long k = (int) lo.bits(); ; k += l.step()) {
                    long b = (int) hi.bits();
                    boolean go = l.cond() == org.acc4j.compiler.ir.Cond.LT ? k < b : k <= b;
                    if (!go || k > Integer.MAX_VALUE) {
                        break;
                    }
                    Map<Var, Integer> inner = new HashMap<>(values);
                    inner.put(l.index(), (int) k);
                    List<Stmt> copy = flatten(l.body(), inner, names);
                    if (copy == null) {
                        return null;
                    }
                    out.addAll(copy);
                    if (out.size() > MAX_COPIES * 4) {
                        return null;
                    }
                }
            } else {
                return null;
            }
        }
        return out;
    }

    /**
     * {@code flat} in single-assignment form: a local's first assignment keeps it, each later one assigns a new
     * local that the reads after it see; null when a local is read before its first assignment, or an unrolled
     * index is read at all (it has no value after its loop).
     */
    private List<Stmt> singleAssignment(List<Stmt> flat) {
        Map<Var, Var> current = new HashMap<>();
        List<Stmt> out = new ArrayList<>();
        Set<Var> assignedHere = new HashSet<>();
        Dataflow.assigned(flat, assignedHere);
        for (Stmt s : flat) {
            Expr[] reads = s instanceof Stmt.Store st ? new Expr[] {st.index(), st.value()}
                    : new Expr[] {((Stmt.Assign) s).value()};
            for (Expr e : reads) {
                boolean[] early = {false};
                Dataflow.forEach(e, x -> early[0] |= x instanceof Expr.Local l && (unrolled.contains(l.var())
                        || assignedHere.contains(l.var()) && !current.containsKey(l.var())));
                if (early[0]) {
                    return null;
                }
            }
            if (s instanceof Stmt.Store st) {
                out.add(new Stmt.Store(st.array(), null, rename(st.index(), current), rename(st.value(), current),
                        st.line(), st.access()));
            } else {
                Stmt.Assign a = (Stmt.Assign) s;
                Expr v = rename(a.value(), current);
                Var target = current.containsKey(a.var())
                        ? new Var(nextSlot++, a.var().type(), a.var().name() + "_" + (nextSlot - 1)) : a.var();
                current.put(a.var(), target);
                out.add(new Stmt.Assign(target, v, a.line()));
            }
        }
        return out;
    }

    private int copyOf(int access) {
        int id = nextAccess++;
        copies.put(id, copies.getOrDefault(access, access));
        return id;
    }

    /** {@code e} with the unrolled indices replaced by their constants (integer constants folded) and new accesses. */
    private Expr substitute(Expr e, Map<Var, Integer> values) {
        if (e instanceof Expr.Local l && values.containsKey(l.var())) {
            return Expr.Const.i32(values.get(l.var()));
        }
        if (e instanceof Expr.Load l && l.row() == null) {
            return new Expr.Load(l.array(), null, substitute(l.index(), values), copyOf(l.access()));
        }
        return rebuild(e, x -> substitute(x, values));
    }

    private static Expr rename(Expr e, Map<Var, Var> current) {
        if (e instanceof Expr.Local l && current.containsKey(l.var())) {
            return new Expr.Local(current.get(l.var()));
        }
        if (e instanceof Expr.Load l) {
            return new Expr.Load(l.array(), l.row() == null ? null : rename(l.row(), current),
                    rename(l.index(), current), l.access());
        }
        return rebuild(e, x -> rename(x, current));
    }

    /** {@code e} with {@code f} applied to its operands (loads and leaves are the callers'); int constants folded. */
    private static Expr rebuild(Expr e, java.util.function.UnaryOperator<Expr> f) {
        if (e instanceof Expr.Binary b) {
            return fold(new Expr.Binary(b.op(), f.apply(b.left()), f.apply(b.right())));
        }
        if (e instanceof Expr.Unary u) {
            return new Expr.Unary(u.op(), f.apply(u.operand()));
        }
        if (e instanceof Expr.Convert c) {
            return new Expr.Convert(c.type(), f.apply(c.operand()));
        }
        if (e instanceof Expr.Call c) {
            return new Expr.Call(c.fn(), c.type(), c.args().stream().map(f).toList());
        }
        if (e instanceof Expr.Compare c) {
            return new Expr.Compare(c.cond(), f.apply(c.left()), f.apply(c.right()), c.unordered());
        }
        if (e instanceof Expr.Select s) {
            return new Expr.Select(f.apply(s.cond()), f.apply(s.ifTrue()), f.apply(s.ifFalse()));
        }
        if (e instanceof Expr.Cmp3 c) {
            return new Expr.Cmp3(f.apply(c.left()), f.apply(c.right()), c.nanIsOne());
        }
        if (e instanceof Expr.Length n) {
            return n.row() == null ? n : new Expr.Length(n.array(), f.apply(n.row()));
        }
        return e;
    }

    /** {@code int} addition, subtraction and multiplication of two constants as Java computes them; else {@code b}. */
    private static Expr fold(Expr.Binary b) {
        if (!(b.left() instanceof Expr.Const l) || !(b.right() instanceof Expr.Const r) || l.type() != Type.I32
                || r.type() != Type.I32) {
            return b;
        }
        int x = (int) l.bits();
        int y = (int) r.bits();
        return switch (b.op()) {
            case ADD -> Expr.Const.i32(x + y);
            case SUB -> Expr.Const.i32(x - y);
            case MUL -> Expr.Const.i32(x * y);
            default -> b;
        };
    }

    /** The ids of the accesses {@code copies} says new ids copy, with those new ids: the set a proof covers. */
    public static Set<Integer> proven(Set<Integer> proven, Map<Integer, Integer> copies) {
        Set<Integer> out = new HashSet<>(proven);
        copies.forEach((copy, original) -> {
            if (proven.contains(original)) {
                out.add(copy);
            }
        });
        return out;
    }
}
