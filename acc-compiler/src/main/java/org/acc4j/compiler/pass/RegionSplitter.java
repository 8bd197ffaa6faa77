package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * Splits a {@code @Kernels} method into compute regions, one per top-level loop nest, and finds each nest's
 * {@link Reductions reductions}.
 *
 * <p>Top-level statements other than loops must be scalar computations (assignments, and ifs of them), and a
 * final {@code return} may give a value. They run on the host in order (the runtime's evaluator), and each is
 * also in every later region's prologue, re-run by each thread. A value computed inside a loop reaches later
 * code only as a reduction's result; such values, and the locals computed from them, are <em>host values</em>:
 * a later region receives them as kernel parameters ({@link Region#hostVars}) and its threads skip the
 * prologue's assignments to them. Everything the host must compute (host values, the reductions' initial
 * values, the returned value) must be computable without reading array elements.
 */
public final class RegionSplitter {
    private RegionSplitter() {
    }

    /** The regions in order, each with its prologue; {@code why} is filled in by {@link Parallelism}. */
    public static List<Region> split(MethodBody m) {
        return split(m, List.of());
    }

    /**
     * As {@link #split(MethodBody)}, for a method whose call also gives back the final values of {@code outputs}
     * (the live-out locals of a launch site): each must be a reduction's variable or left unset by the loops.
     */
    public static List<Region> split(MethodBody m, List<Var> outputs) {
        List<Region> regions = new ArrayList<>();
        List<Stmt> scalar = new ArrayList<>();
        Set<Var> loopAssigned = new HashSet<>();
        Set<Var> host = new LinkedHashSet<>();
        Set<Var> needed = new LinkedHashSet<>();
        for (Stmt s : m.body()) {
            if (s instanceof Stmt.For f) {
                checkNoLeak(scalar, loopAssigned, s.line());
                checkNoLeak(List.of(f), loopAssigned, s.line());
                List<Reduction> reductions = Reductions.find(f);
                // the host values the threads read: live into the prologue without its assignments to them, and the loop
                List<Stmt> threads = new ArrayList<>(Region.without(scalar, host));
                threads.add(f);
                Set<Var> used = new HashSet<>();
                Dataflow.liveIn(threads, used);
                List<Var> hostVars = host.stream().filter(used::contains).toList();
                regions.add(new Region(regions.size(), scalar, f, "", null, List.of(), List.of(), reductions, hostVars));
                Dataflow.assigned(f.body(), loopAssigned);
                loopAssigned.add(f.index());
                for (Reduction r : reductions) {
                    loopAssigned.remove(r.var());
                    host.add(r.var());
                    needed.add(r.var());
                }
            } else if (s instanceof Stmt.Return r) {
                if (r.value() != null) {
                    Set<Var> read = new HashSet<>();
                    reads(r.value(), read);
                    read.retainAll(loopAssigned);
                    if (!read.isEmpty()) {
                        // the first variable (by slot) with a reason it is not a reduction, else the first
                        List<Var> sorted = read.stream().sorted(java.util.Comparator.comparingInt(Var::slot)).toList();
                        Var v = sorted.stream().filter(x -> !whyNot(regions, x).isEmpty()).findFirst()
                                .orElse(sorted.get(0));
                        throw new Unsupported(r.line(), "the variable " + v.name()
                                + " is set inside a parallel loop and returned (only a reduction's result is"
                                + whyNot(regions, v) + ")");
                    }
                    reads(r.value(), needed);
                }
            } else if (isScalar(s)) {
                Set<Var> read = new HashSet<>();
                Dataflow.liveIn(List.of(s), read);
                read.retainAll(host);
                if (!read.isEmpty()) {
                    Dataflow.assigned(List.of(s), host);
                }
                checkNoLeak(List.of(s), loopAssigned, s.line());
                loopAssigned.removeAll(definitelyAssigned(s));
                scalar.add(s);
            } else {
                throw new Unsupported(s.line(), s instanceof Stmt.Store || s instanceof Stmt.Atomic
                        ? "an array " + (s instanceof Stmt.Store ? "store" : "atomic") + " outside a loop (it would run once per thread)"
                        : "a loop inside an if at the top of the method");
            }
        }
        if (regions.isEmpty()) {
            throw new Unsupported(0, "a @Kernels method with no loop");
        }
        for (Var out : outputs) {
            if (loopAssigned.contains(out)) {
                Region last = regions.get(regions.size() - 1);
                throw new Unsupported(last.loop().line(), "the variable " + nameIn(last, out) + " is set inside the"
                        + " parallel loop and read after it (only a reduction's result, such as s += x, leaves a"
                        + " parallel loop" + whyNot(regions, out) + ")");
            }
            needed.add(out);
        }
        needed.addAll(host);
        checkHostComputable(m.body(), needed);
        return regions;
    }

    /** {@code "; v is not a reduction: why"} for the last loop that sets {@code v}, when it carries it; else empty. */
    private static String whyNot(List<Region> regions, Var v) {
        for (int k = regions.size() - 1; k >= 0; k--) {
            Stmt.For loop = regions.get(k).loop();
            Set<Var> assigned = new HashSet<>();
            Dataflow.assigned(loop.body(), assigned);
            if (assigned.contains(v)) {
                Set<Var> live = new HashSet<>();
                Dataflow.liveIn(loop.body(), live);
                String why = live.contains(v) ? Reductions.whyNot(loop, v) : null;
                return why == null ? "" : "; " + nameIn(regions.get(k), v) + " is not a reduction: " + why;
            }
        }
        return "";
    }

    /** The name the loop gives {@code v} (the output's own name is only its slot). */
    private static String nameIn(Region r, Var v) {
        Set<Var> assigned = new HashSet<>();
        Dataflow.assigned(List.of(r.loop()), assigned);
        for (Var a : assigned) {
            if (a.equals(v)) {
                return a.name();
            }
        }
        return v.name();
    }

    private static void reads(Expr e, Set<Var> out) {
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Local l) {
                out.add(l.var());
            }
        });
    }

    /**
     * The top-level statements that compute a value the host needs (and, backwards, what they read) must not
     * read array elements: the host evaluates them without the device's copies.
     */
    private static void checkHostComputable(List<Stmt> body, Set<Var> needed) {
        for (int k = body.size() - 1; k >= 0; k--) {
            Stmt s = body.get(k);
            if (s instanceof Stmt.For || s instanceof Stmt.Return) {
                continue;
            }
            Set<Var> assigned = new HashSet<>();
            Dataflow.assigned(List.of(s), assigned);
            assigned.retainAll(needed);
            if (assigned.isEmpty()) {
                continue;
            }
            for (Expr e : Dataflow.expressions(List.of(s))) {
                if (org.acc4j.compiler.ir.Exprs.any(e, x -> x instanceof Expr.Load)) {
                    throw new Unsupported(s.line(), "an array element read outside the loops where the value of "
                            + assigned.iterator().next().name() + " is needed on the host (by a reduction or the"
                            + " returned value)");
                }
                reads(e, needed);
            }
        }
    }

    /** The variables {@code s} assigns on every path. */
    private static Set<Var> definitelyAssigned(Stmt s) {
        Set<Var> out = new HashSet<>();
        if (s instanceof Stmt.Assign a) {
            out.add(a.var());
        } else if (s instanceof Stmt.If i) {
            Set<Var> t = new HashSet<>();
            for (Stmt x : i.then()) {
                t.addAll(definitelyAssigned(x));
            }
            Set<Var> e = new HashSet<>();
            for (Stmt x : i.otherwise()) {
                e.addAll(definitelyAssigned(x));
            }
            t.retainAll(e);
            out.addAll(t);
        }
        return out;
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
                        + " is set inside an earlier parallel loop and used after it (only a reduction's result is)");
            }
        }
    }
}
