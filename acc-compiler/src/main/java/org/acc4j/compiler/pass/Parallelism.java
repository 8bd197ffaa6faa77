package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Disjointness;
import org.acc4j.compiler.ir.Evaluator;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Decides which loops of a region run in parallel and where they go on the grid.
 *
 * <p><b>With {@code @Loop} clauses</b> ({@code gang}, {@code worker}, {@code vector}, {@code independent},
 * {@code collapse}) the marked loops are parallel on the user's word, as in OpenACC; they must form a chain
 * from the outer loop inwards, each directly in the body of the one before, at most three levels (deeper with
 * {@code collapse}). Unmarked inner loops run sequentially in each thread.
 *
 * <p><b>Without any</b>, the dependence test picks the chain: a loop is parallel when no scalar is carried
 * from one iteration to the next, and every written array is accessed at one subscript, linear in the loop
 * indices, whose parallel index appears; that the writes are disjoint is a {@link Disjointness} condition,
 * proven here when constant and otherwise checked by the runtime before each launch. A loop that is not parallel is
 * refused with every reason; a dependence proven by {@link Dependences} (a constant distance) is named, and only an
 * unproven one suggests {@code @Loop(independent = true)}. Loops that are not counted ({@link Stmt.While}) run
 * sequentially in each thread; what they assign is private to the iteration around them.
 *
 * <p>A loop parallel on the user's word whose writes provably collide keeps its kernel with a warning among the
 * region's notes ({@link Region#warnings()}).
 *
 * <p><b>{@code !=} loops</b> may be parallel levels when their bounds use nothing the nest assigns (no outer index):
 * the runtime evaluates them before each launch and checks that the index reaches the bound in whole steps
 * ({@link Mapping#checkLoops}). An unmarked one whose bounds depend on the nest runs sequentially; a marked
 * one is refused. So do loops whose step is invariant but not a constant ({@link Stmt.Stride}): the runtime checks
 * that the step is positive and the index does not wrap around; such a loop is only ever a parallel level.
 *
 * <p>An array may be accessed at several subscripts that differ only in their invariant parts (a butterfly's
 * {@code data[i]}, {@code data[i + 1]}, {@code data[i + 2*dual]}): the parts are {@link Disjointness#offsets()}, and
 * the writes of two iterations are disjoint when the offsets' spread stays below the indices' coefficients.
 *
 * <p><b>Mapping</b> (the OpenUH rules, generalised): levels with a vector get block axes, the one whose index
 * is the stride-1 subscript of most accesses on x (coalescing), the others innermost first on y and z; levels
 * with a gang get grid axes, innermost first on x, y and z. Without clauses, the coalescing level gets
 * {@code gang vector(128)} and the others {@code gang}.
 */
public final class Parallelism {
    /** Block extent of a {@code vector} without a size, per axis. */
    static final int[] AUTO_VECTOR = {128, 4, 2};

    private final GridMapping grid = new GridMapping(this);
    final Region region;
    final Stmt.For top;
    final Set<Var> variant = new HashSet<>();
    final Set<Var> indices = new LinkedHashSet<>();
    final List<Access> accesses = new ArrayList<>();
    /** The atomic accesses ({@code Acc.atomic...}), which do not conflict with each other. */
    final List<Access> atomics = new ArrayList<>();
    /** The increments a coloured region runs colour by colour, with their own loads (by identity). */
    final Set<Access> coloured = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    /**
     * Why a loop of the nest runs sequentially in each thread. Keyed by identity: the loops of the one nest being
     * decided, neither shared nor rebuilt while it runs, and two loops of equal text (sibling copies) stay apart,
     * which a loop's structural equality would not keep.
     */
    final Map<Stmt.For, String> notes = new IdentityHashMap<>();
    /** Locals the nest assigns from array elements (an index read from memory), with their definitions. */
    Map<Var, Expr> fromMemory = Map.of();

    /**
     * One array access with its enclosing loops (outermost first) and linear forms (null when not linear).
     *
     * @param increment the {@code v} of a store that adds to the element it stores to ({@code a[x] = a[x] + v}),
     *                  else null
     */
    record Access(ArrayRef array, Expr row, Expr index, Linear.Form rowForm, Linear.Form indexForm, boolean store,
                  List<Stmt.For> loops, int line, boolean conditional, Expr increment) {
        boolean sameSubscript(Access o) {
            return java.util.Objects.equals(row, o.row) && index.equals(o.index)
                    || (rowForm != null && indexForm != null && rowForm.equals(o.rowForm)
                    && indexForm.equals(o.indexForm));
        }
    }

    private Parallelism(Region r) {
        this.region = r;
        this.top = r.loop();
    }

    public static Region decide(Region r) {
        return decide(r, false);
    }

    /**
     * Decides one region; with {@code serial} (the method's {@code @Kernels(serial = true)}), or when its outer loop
     * is marked {@code seq} and nothing in it parallel, the region is {@linkplain #serial serial}.
     */
    public static Region decide(Region r, boolean serial) {
        return decide(r, serial, false);
    }

    /**
     * Decides one region: {@linkplain #decide(Region, boolean) serial}, else a {@linkplain Scans scan} (float sums
     * and products only when {@code relaxed}), else by the dependence test.
     */
    public static Region decide(Region r, boolean serial, boolean relaxed) {
        Parallelism p = new Parallelism(r);
        if (serial || r.loop().spec().seq() && !hasClause(List.of(r.loop()))) {
            return p.serial(serial ? "@Kernels(serial = true)" : "@Loop(seq = true) on its outer loop");
        }
        org.acc4j.compiler.ir.Scan scan = r.reductions().isEmpty() ? Scans.find(r.loop(), relaxed) : null;
        if (scan != null) {
            return p.scan(scan);
        }
        return p.run();
    }

    /** {@link #decide} for each region in order; when some cannot run in parallel, one exception names every obstacle. */
    public static List<Region> decideAll(List<Region> regions) {
        return decideAll(regions, false);
    }

    /** {@link #decideAll(List)}, each region {@linkplain #decide(Region, boolean) serial} when {@code serial}. */
    public static List<Region> decideAll(List<Region> regions, boolean serial) {
        return decideAll(regions, serial, false);
    }

    /** {@link #decideAll(List)}, each region decided by {@link #decide(Region, boolean, boolean)}. */
    public static List<Region> decideAll(List<Region> regions, boolean serial, boolean relaxed) {
        List<Region> out = new ArrayList<>();
        List<org.acc4j.compiler.Diagnostic.Obstacle> obstacles = new ArrayList<>();
        for (Region r : regions) {
            try {
                out.add(decide(r, serial, relaxed));
            } catch (Unsupported u) {
                obstacles.addAll(u.obstacles());
            }
        }
        if (!obstacles.isEmpty()) {
            throw new Unsupported(obstacles);
        }
        return out;
    }

    Region run() {
        Dataflow.assigned(List.of(top), variant);
        Dataflow.loopIndices(List.of(top), indices);
        new Accesses(this).collect(top.body(), new ArrayList<>(List.of(top)), new HashMap<>(),
                Dataflow.assignedOnce(List.of(top)), false);
        fromMemory = Dependences.fromMemory(List.of(top));
        boolean user = hasClause(List.of(top));
        List<List<Stmt.For>> chain = user ? userChain() : autoChain();
        List<Disjointness> checks = user ? List.of() : checks(chain);
        Mapping mapping = grid.map(chain, user);
        requireStridesParallel(List.of(top), mapping);
        List<String> lines = new ArrayList<>();
        report(List.of(top), mapping, lines);
        if (user) {
            lines.addAll(Dependences.collisions(chain, accesses));
        }
        String why = user ? "parallel: mapped by the user" : "parallelizable: no loop-carried dependence"
                + (checks.isEmpty() ? "" : " (disjoint writes checked at launch)");
        for (org.acc4j.compiler.ir.Reduction r : region.reductions()) {
            why += "; " + r + " over the whole nest (line " + r.line() + ")";
        }
        return region.decided(why + "; " + mapping, mapping, checks, lines);
    }

    /**
     * The region on one device thread (OpenACC's {@code serial}): no parallel level, a grid and a block of one
     * thread, every loop sequential in Java's order, so any dependence between iterations is kept.
     */
    Region serial(String asked) {
        Mapping mapping = new Mapping(List.of(), new int[] {1, 1, 1},
                List.of(new Mapping.Unused(), new Mapping.Unused(), new Mapping.Unused()), "serial");
        requireStridesParallel(List.of(top), mapping);
        String why = "serial (" + asked + "): one device thread runs the nest in Java's order";
        for (org.acc4j.compiler.ir.Reduction r : region.reductions()) {
            why += "; " + r + " (line " + r.line() + ")";
        }
        List<String> lines = List.of("serial: the loop over " + top.index().name() + " and every loop in it run on one"
                + " device thread (" + asked + "), in Java's order; it pays where the arrays stay on the device");
        return region.decided(why + "; " + mapping, mapping, List.of(), lines);
    }

    /**
     * The region as a device scan: one level over the loop, one block of {@link org.acc4j.templates.Scans#THREADS}
     * threads per tile of the scan, as many blocks as tiles.
     */
    Region scan(org.acc4j.compiler.ir.Scan scan) {
        int tile = org.acc4j.templates.Scans.tileElements(scan.routine().kind());
        Mapping.Level level = new Mapping.Level(List.of(top), 0, 0, "a tile of " + tile + " elements a block");
        Mapping mapping = new Mapping(List.of(level), new int[] {org.acc4j.templates.Scans.THREADS, 1, 1},
                List.of(new Mapping.FromTrip(0, tile, Integer.MAX_VALUE, 1), new Mapping.Unused(),
                        new Mapping.Unused()), "scan");
        String why = scan + " (line " + scan.line() + "): one pass, decoupled look-back; " + mapping;
        List<String> lines = List.of(scan + ": the loop over " + top.index().name() + " carries "
                + scan.var().name() + ", which the device scan of ptx-templates computes in one pass"
                + (scan.var().type().isFloat() && (scan.op() == org.acc4j.compiler.ir.Reduction.Op.ADD
                || scan.op() == org.acc4j.compiler.ir.Reduction.Op.MUL)
                ? " (regrouped: @Kernels(relaxed = true))" : " (exact: Java's result in any grouping)"));
        return region.scanned(scan, why, mapping, lines);
    }

    /** A loop with a {@link Stmt.Stride} is Java's loop only as a checked parallel level: refuse it anywhere else. */
    static void requireStridesParallel(List<Stmt> stmts, Mapping mapping) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                if (f.stride() != null && mapping.levelOf(f) == null) {
                    throw new Unsupported(f.line(), "a loop over " + f.stride().var().name() + " whose step "
                            + f.stride().step() + " is not a constant, which does not run in parallel here");
                }
                requireStridesParallel(f.body(), mapping);
            } else if (s instanceof Stmt.If i) {
                requireStridesParallel(i.then(), mapping);
                requireStridesParallel(i.otherwise(), mapping);
            } else if (s instanceof Stmt.While w) {
                requireStridesParallel(w.body(), mapping);
            }
        }
    }

    static boolean parallelClause(LoopSpec s) {
        return s.hasParallelLevel() || s.independent() || s.collapse() > 1;
    }

    static boolean hasClause(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f && (parallelClause(f.spec()) || hasClause(f.body()))) {
                return true;
            }
            if (s instanceof Stmt.If i && (hasClause(i.then()) || hasClause(i.otherwise()))) {
                return true;
            }
            if (s instanceof Stmt.While w && hasClause(w.body())) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- the chain of parallel loops

    List<List<Stmt.For>> userChain() {
        List<List<Stmt.For>> chain = new ArrayList<>();
        Stmt.For cur = top;
        if (!parallelClause(top.spec())) {
            throw new Unsupported(top.line(), "a sequential outer loop around a parallel loop (a loop of kernel "
                    + "launches is not supported yet: move the outer loop out of the @Kernels method)");
        }
        while (cur != null) {
            if (cur.spec().seq()) {
                throw new Unsupported(cur.line(), "a loop marked both seq and parallel " + cur.spec());
            }
            List<Stmt.For> group = collapse(cur);
            chain.add(group);
            Stmt.For inner = group.get(group.size() - 1);
            requireInvariantBounds(group);
            for (Stmt.For f : group) {
                String strided = uncheckedStride(f);
                if (strided != null) {
                    throw new Unsupported(f.line(), "a parallel loop over " + f.stride().var().name() + " whose step is "
                            + "not a constant and whose " + strided + ": the step is checked before the launch, so the "
                            + "loop's start, bound and step must be known then");
                }
                String why = uncheckedNotEqual(f);
                if (why != null) {
                    throw new Unsupported(f.line(), "a parallel loop over " + f.index().name() + " with a != test whose "
                            + why + ": whether the index reaches its bound is checked before the launch, so its bounds"
                            + " must be known then (write the test with < or >)");
                }
            }
            Stmt.For next = null;
            for (Stmt s : inner.body()) {
                if (s instanceof Stmt.For f && parallelClause(f.spec())) {
                    if (next != null) {
                        throw new Unsupported(f.line(), "two parallel loops side by side in one loop body");
                    }
                    next = f;
                } else if (hasClause(List.of(s))) {
                    throw new Unsupported(s.line(), "a parallel loop inside a sequential loop or an if");
                }
            }
            if (next != null) {
                perGangReduction(next);
                for (Stmt s : inner.body()) {
                    if (s != next && !scalarOnly(s)) {
                        throw new Unsupported(s.line(), "an array store or a loop beside the parallel loop over "
                                + next.index().name() + " (it would run once per thread of the inner loop)");
                    }
                    Var red = s == next ? null : reductionUpdated(s);
                    if (red != null) {
                        throw new Unsupported(s.line(), "an update of the reduction variable " + red.name() + " beside"
                                + " the parallel loop over " + next.index().name() + " (it would be counted once per"
                                + " thread of that loop): move it into that loop, or make that loop sequential");
                    }
                }
            }
            cur = next;
        }
        if (chain.size() > 3) {
            throw new Unsupported(chain.get(3).get(0).line(), "more than three nested parallel loops (use collapse)");
        }
        return chain;
    }

    /**
     * Refuses a {@code reduction} clause on a parallel inner loop for a variable private to an iteration of the loop
     * around it (a row's sum): a vector reduction per gang iteration is not supported, and the same loop without
     * its parallel clause gives Java's result, running sequentially in each thread.
     */
    void perGangReduction(Stmt.For f) {
        for (String item : f.spec().reductionItems()) {
            String name = item.substring(item.lastIndexOf(':') + 1).trim();
            if (region.reductions().stream().noneMatch(r -> r.var().name().equals(name))) {
                throw new Unsupported(f.line(), "reduction(" + item.trim() + ") on the parallel loop over "
                        + f.index().name() + ", into " + name + ", a local of each iteration of the loop around it: a"
                        + " vector reduction per gang iteration is not supported yet (without its parallel clause the"
                        + " loop over " + f.index().name() + " runs sequentially in each thread, with Java's result)");
            }
        }
    }

    List<Stmt.For> collapse(Stmt.For f) {
        List<Stmt.For> group = new ArrayList<>(List.of(f));
        Set<Var> outer = new HashSet<>(List.of(f.index()));
        for (int k = 1; k < f.spec().collapse(); k++) {
            Stmt.For last = group.get(group.size() - 1);
            if (last.body().size() != 1 || !(last.body().get(0) instanceof Stmt.For inner)) {
                throw new Unsupported(last.line(), "collapse(" + f.spec().collapse() + ") over loops that are not "
                        + "perfectly nested (the body of the loop over " + last.index().name() + " must be one loop)");
            }
            for (Var v : outer) {
                if (Exprs.mentions(inner.lower(), v) || Exprs.mentions(inner.bound(), v)) {
                    throw new Unsupported(inner.line(), "collapse over a loop whose bounds depend on the index "
                            + v.name() + " (the collapsed nest must be rectangular)");
                }
            }
            outer.add(inner.index());
            group.add(inner);
        }
        return group;
    }

    void requireInvariantBounds(List<Stmt.For> group) {
        for (Stmt.For f : group) {
            Set<Var> inside = new HashSet<>();
            Dataflow.assigned(f.body(), inside);
            inside.add(f.index());
            for (Expr e : List.of(f.lower(), f.bound())) {
                if (Exprs.any(e, x -> x instanceof Expr.Load || (x instanceof Expr.Local l && inside.contains(l.var())))) {
                    throw new Unsupported(f.line(), "a parallel loop whose bound " + e + " may change while it runs");
                }
            }
        }
    }

    /** A reduction variable of the nest that {@code s} assigns, or null. */
    private Var reductionUpdated(Stmt s) {
        Set<Var> assigned = new HashSet<>();
        Dataflow.assigned(List.of(s), assigned);
        for (var r : region.reductions()) {
            if (assigned.contains(r.var())) {
                return r.var();
            }
        }
        return null;
    }

    static boolean scalarOnly(Stmt s) {
        if (s instanceof Stmt.Assign) {
            return true;
        }
        if (s instanceof Stmt.If i) {
            return i.then().stream().allMatch(Parallelism::scalarOnly)
                    && i.otherwise().stream().allMatch(Parallelism::scalarOnly);
        }
        return false;
    }

    List<List<Stmt.For>> autoChain() {
        List<List<Stmt.For>> chain = new ArrayList<>();
        Stmt.For cur = top;
        while (cur != null && chain.size() < 3) {
            List<Problem> problems = dependence(cur);
            if (!problems.isEmpty()) {
                if (chain.isEmpty()) {
                    List<org.acc4j.compiler.Diagnostic.Obstacle> all = new ArrayList<>();
                    for (Problem p : problems) {
                        all.add(new org.acc4j.compiler.Diagnostic.Obstacle(all.isEmpty() ? cur.line() : p.line(),
                                p.construct()));
                    }
                    throw new Unsupported(all);
                }
                notes.put(cur, "sequential in each thread: " + problems.get(0).why());
                break;
            }
            chain.add(List.of(cur));
            Stmt.For next = null;
            int loops = 0;
            boolean scalar = true;
            Var red = null;
            for (Stmt s : cur.body()) {
                if (s instanceof Stmt.For f) {
                    next = f;
                    loops++;
                } else if (!scalarOnly(s)) {
                    scalar = false;
                } else if (red == null) {
                    red = reductionUpdated(s);
                }
            }
            if (loops != 1 || !scalar || red != null) {
                if (next != null) {
                    notes.put(next, "sequential in each thread: " + (loops > 1 ? "it has sibling loops"
                            : !scalar ? "the loop around it also stores to memory outside it"
                            : "the loop around it updates the reduction variable " + red.name() + " beside it"));
                }
                break;
            }
            cur = next;
        }
        return chain;
    }

    /**
     * Null when {@code f} has no {@code !=} test or its bounds can be evaluated before the launch (they use no
     * variable the nest assigns, such as an outer index), else why not. A parallel {@code !=} level runs only
     * after the runtime has checked that its index reaches the bound without wrapping around.
     */
    String uncheckedNotEqual(Stmt.For f) {
        if (f.cond() != org.acc4j.compiler.ir.Cond.NE) {
            return null;
        }
        for (Expr e : List.of(f.lower(), f.bound())) {
            Var v = firstVariant(e);
            if (v != null) {
                return "bound " + e + " depends on " + v.name() + ", which changes within the nest";
            }
        }
        return null;
    }

    Var firstVariant(Expr e) {
        Var[] found = new Var[1];
        Dataflow.forEach(e, x -> {
            if (found[0] == null && x instanceof Expr.Local l && variant.contains(l.var())) {
                found[0] = l.var();
            }
        });
        return found[0];
    }

    /**
     * Null when {@code f} has no {@link Stmt.Stride} or its start, bound and step use no variable the nest assigns
     * (they can be checked before the launch), else why not.
     */
    String uncheckedStride(Stmt.For f) {
        if (f.stride() == null) {
            return null;
        }
        for (Expr e : List.of(f.stride().lower(), f.stride().bound(), f.stride().step())) {
            Var v = firstVariant(e);
            if (v != null) {
                return (e == f.stride().step() ? "step " : e == f.stride().bound() ? "bound " : "start ") + e
                        + " depends on " + v.name() + ", which changes within the nest";
            }
        }
        return null;
    }

    /**
     * One reason a loop cannot run in parallel; {@code advise} when it is only unproven, so that the user's
     * {@code @Loop(independent = true)} could make it parallel.
     */
    record Problem(String why, int line, boolean advise) {
        String construct() {
            return "a loop that is not parallelizable: " + why
                    + (advise ? "; if its iterations are independent, mark the index @Loop(independent = true)" : "");
        }
    }

    /** Empty when {@code f} can run in parallel (given the checks made later), else every reason, the first first. */
    List<Problem> dependence(Stmt.For f) {
        if (f.spec().seq()) {
            return List.of(new Problem("marked seq", f.line(), false));
        }
        List<Problem> out = new ArrayList<>();
        String strided = uncheckedStride(f);
        if (strided != null) {
            out.add(new Problem("its step is not a constant and its " + strided + ", so the step cannot be checked "
                    + "before the launch", f.line(), false));
        }
        String ne = uncheckedNotEqual(f);
        if (ne != null) {
            out.add(new Problem("its != test's " + ne + ", so whether it reaches its bound cannot be checked before the "
                    + "launch", f.line(), false));
        }
        Set<Var> inside = new HashSet<>();
        Dataflow.assigned(f.body(), inside);
        inside.add(f.index());
        for (Expr e : List.of(f.lower(), f.bound())) {
            if (Exprs.any(e, x -> x instanceof Expr.Load || (x instanceof Expr.Local l && inside.contains(l.var())))) {
                out.add(new Problem("its bound " + e + " may change while it runs", f.line(), false));
            }
        }
        Set<Var> carried = new LinkedHashSet<>();
        Dataflow.liveIn(f.body(), carried);
        carried.retainAll(inside);
        carried.remove(f.index());
        for (org.acc4j.compiler.ir.Reduction r : region.reductions()) {
            carried.remove(r.var());
        }
        for (Var v : carried) {
            String why = v.type() == org.acc4j.compiler.ir.Type.PRED ? null : Reductions.whyNot(region.loop(), v);
            out.add(new Problem("the scalar " + v.name() + " is carried from one iteration to the next"
                    + (v.type() == org.acc4j.compiler.ir.Type.PRED ? "" : " and is not a reduction")
                    + (why == null ? "" : " (" + why + ")"), f.line(), false));
        }
        Set<ArrayRef> mixed = new HashSet<>();
        for (Access t : atomics) {
            if (!t.loops.contains(f) || mixed.contains(t.array)) {
                continue;
            }
            for (Access a : accesses) {
                if (a.array.equals(t.array) && (a.store || t.store)) {
                    mixed.add(t.array);
                    out.add(new Problem(t.array.name() + " is updated atomically (line " + t.line + ") and also "
                            + (a.store ? "written" : "read") + " plainly (line " + a.line + "): the plain access is "
                            + "not ordered with the atomic ones (use Acc.atomic" + (a.store ? "Write" : "Read")
                            + " for it)", a.line, false));
                    break;
                }
            }
        }
        Map<ArrayRef, Access> first = new LinkedHashMap<>();
        for (Access a : accesses) {
            if (a.store && a.loops.contains(f)) {
                first.putIfAbsent(a.array, a);
            }
        }
        for (Access w : first.values()) {
            boolean other = false;
            List<Access> shifted = shifted(w);
            List<Access> stores = new ArrayList<>(List.of(w));
            shifted.stream().filter(Access::store).forEach(stores::add);
            for (Access a : accesses) {
                if (coloured.contains(w) && coloured.contains(a) || ownRow(w, a, f)) {
                    continue;
                }
                if (a.array.equals(w.array) && !a.sameSubscript(w)
                        && (shifted.contains(a) || !stores.stream().allMatch(x -> Ranges.disjoint(x, a)))) {
                    Long d = w.conditional || a.conditional ? null : Dependences.offset(w, a, f);
                    if (d == null && shifted.contains(a)) {
                        continue;
                    }
                    if (d != null) {
                        out.add(new Problem(Dependences.describe(w, a, f, d), a.line, false));
                    } else if (!other) {
                        // an increment at a subscript read from memory: independent would race, atomics would not
                        boolean increment = w.increment() != null && Dependences.indirect(w, fromMemory);
                        out.add(new Problem(w.array.name() + " is written and also accessed at another subscript (line "
                                + w.line + " and line " + a.line + ")" + (increment ? ", an increment at an index read "
                                + "from memory: iterations that add to the same element would race; to add from every "
                                + "iteration, mark the loop's index @Loop(increments = Loop.Increments.ATOMIC)" : ""),
                                w.line, !increment));
                    }
                    other = true;
                }
            }
            if (other) {
                continue;
            }
            if (coloured.contains(w)) {
                continue;
            }
            if (Dependences.indirect(w, fromMemory)) {
                out.add(new Problem(Dependences.race(w, fromMemory, w.increment()), w.line, false));
                continue;
            }
            if (w.indexForm == null || (w.row != null && w.rowForm == null)) {
                out.add(new Problem("the subscript of " + w.array.name() + " at line " + w.line
                        + " is not linear in the loop indices", w.line, true));
                continue;
            }
            boolean appears = w.indexForm.coefficient(f.index()) != null
                    || (w.rowForm != null && w.rowForm.coefficient(f.index()) != null);
            if (!appears) {
                out.add(new Problem("every iteration writes the same elements of " + w.array.name() + " (line " + w.line
                        + ")", w.line, false));
            }
        }
        return out;
    }

    /**
     * Whether {@code w} and {@code a} are in one row of a two-dimensional array whose subscript is {@code ±f + c}
     * ({@code c} invariant, no other index): two iterations of {@code f} then reach two different rows, whatever the
     * column subscripts (LINPACK's pivot swap {@code colj[l] = colj[k]} beside its {@code daxpy} into
     * {@code colj}). The rows of an array a nest writes are different arrays: the runtime checks that before each
     * launch, and runs the call on the host otherwise.
     */
    private static boolean ownRow(Access w, Access a, Stmt.For f) {
        if (w.row == null || a.row == null || w.rowForm == null || !w.array.equals(a.array)
                || !w.rowForm.equals(a.rowForm) || f.index().type() != org.acc4j.compiler.ir.Type.I32) {
            return false;
        }
        Map<Var, Expr> c = w.rowForm.coefficients();
        return c.size() == 1 && c.get(f.index()) instanceof Expr.Const k && Math.abs(Linear.value(k)) == 1;
    }

    /**
     * The accesses to {@code w}'s array at subscripts that differ from {@code w}'s only in their invariant parts (the
     * same coefficients, the same row), not proven apart from it by {@link Ranges}: their offsets join the
     * disjointness condition.
     */
    List<Access> shifted(Access w) {
        List<Access> out = new ArrayList<>();
        for (Access a : accesses) {
            if (a.array.equals(w.array) && !a.sameSubscript(w) && w.indexForm != null && a.indexForm != null
                    && (w.row == null) == (a.row == null)
                    && (w.row == null || w.rowForm != null && w.rowForm.equals(a.rowForm))
                    && w.indexForm.coefficients().equals(a.indexForm.coefficients()) && !Ranges.disjoint(w, a)) {
                out.add(a);
            }
        }
        return out;
    }

    /** The disjointness conditions of every written array over the chain; constant ones are decided here. */
    List<Disjointness> checks(List<List<Stmt.For>> chain) {
        // by identity, as notes are
        Set<Stmt.For> parallel = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        chain.forEach(parallel::addAll);
        List<Disjointness> checks = new ArrayList<>();
        Set<ArrayRef> done = new HashSet<>();
        for (Access w : accesses) {
            if (!w.store || coloured.contains(w) || !done.add(w.array)) {
                continue;
            }
            List<Disjointness.Term> terms = new ArrayList<>();
            for (Stmt.For loop : w.loops) {
                Expr c = w.indexForm.coefficient(loop.index());
                terms.add(new Disjointness.Term(loop, c, 1, parallel.contains(loop) && (c != null || w.row == null
                        || w.rowForm.coefficient(loop.index()) == null)));
                if (w.row != null) {
                    Expr rc = w.rowForm.coefficient(loop.index());
                    if (rc != null) {
                        terms.add(new Disjointness.Term(loop, rc, 1L << 32, false));
                    }
                }
            }
            List<Expr> offsets = new ArrayList<>(List.of(w.indexForm.rest()));
            for (Access a : shifted(w)) {
                if (!offsets.contains(a.indexForm.rest())) {
                    offsets.add(a.indexForm.rest());
                }
            }
            Disjointness d = new Disjointness(w.array, terms, offsets.size() > 1 ? offsets : List.of(), w.line);
            if (offsets.size() == 1 && proven(terms)) {
                continue;
            }
            try {
                String why = d.check(new Evaluator(s -> {
                    throw new Evaluator.NotEvaluable(s.name());
                }));
                if (why != null) {
                    throw new Unsupported(w.line, "a loop nest that is not parallelizable: " + why
                            + "; if its iterations are independent, mark the indices @Loop(independent = true)");
                }
            } catch (Evaluator.NotEvaluable | ArithmeticException e) {
                checks.add(d);
            }
        }
        return checks;
    }

    /**
     * Whether the writes are disjoint whatever the bounds: in the row and in the column subscript at most one
     * int index appears, with a non-zero constant coefficient, and every parallel index appears.
     */
    static boolean proven(List<Disjointness.Term> terms) {
        int rows = 0;
        int cols = 0;
        for (Disjointness.Term t : terms) {
            if (t.coefficient() == null) {
                if (t.parallel()) {
                    return false;
                }
                continue;
            }
            if (!(t.coefficient() instanceof Expr.Const k) || Linear.value(k) == 0
                    || t.loop().index().type() != org.acc4j.compiler.ir.Type.I32) {
                return false;
            }
            if (t.rowScale() == 1) {
                cols++;
            } else {
                rows++;
            }
        }
        return rows <= 1 && cols <= 1;
    }

    // ---------------------------------------------------------------- report

    void report(List<Stmt> stmts, Mapping mapping, List<String> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                Mapping.Level level = mapping.levelOf(f);
                String what;
                if (level != null) {
                    what = "parallel (" + level.why() + "): " + f.index().name() + " from " + level.startExpr()
                            + " by " + level.strideExpr() + (level.loops().size() > 1 ? ", collapsed" : "");
                } else {
                    what = notes.getOrDefault(f, f.spec().seq() ? "sequential in each thread: marked seq"
                            : "sequential in each thread");
                }
                String over = f.stride() == null ? f.index().name() : f.stride().var().name() + " (" + f.stride().var()
                        .name() + " = " + f.stride().index(new Expr.Local(f.index())) + ")";
                out.add("line " + f.line() + ": loop over " + over + ": " + what);
                report(f.body(), mapping, out);
            } else if (s instanceof Stmt.If i) {
                report(i.then(), mapping, out);
                report(i.otherwise(), mapping, out);
            } else if (s instanceof Stmt.While w) {
                out.add("line " + w.line() + ": " + (w.endless() ? "loop" : "loop while " + w.cond())
                        + ": sequential in each thread (not a counted loop)");
                report(w.body(), mapping, out);
            }
        }
    }
}
