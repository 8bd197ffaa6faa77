package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.ColourPlan;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.AtomicOp;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * {@code @Loop(increments = ATOMIC)}: in such a loop (and the loops inside it), each read-modify-write
 * {@code a[x] = a[x] + v} or {@code a[x] = a[x] - v} of an {@code int}, {@code long}, {@code float} or
 * {@code double} element whose subscript {@code x} is read from memory (an index array: {@code res[c1[e]] += f},
 * {@code bins[data[i]]++}, directly or through a local the body sets) becomes an atomic add of {@code v} (of
 * {@code -v} for a subtraction, which is the same operation in IEEE and in wrapping integers). Atomic adds do not
 * race with each other, so the dependence test then finds the loop parallel when nothing else is shared. Other
 * writes are left as they are, and the dependence test judges them as before.
 *
 * <p>{@code @Loop(increments = COLOUR)} on a region's outer loop: the indirect increments stay plain adds, and the
 * region gets a {@link ColourPlan} naming the index arrays they go through ({@code res[c1[e]]}, {@code res[4*c1[e] +
 * k]}); the parallelism pass then lets those increments meet across iterations, since no two iterations of a colour
 * reach one element, and {@link Colours} rewrites the loop to run over a colour's iterations. {@code AUTO} chooses
 * atomics or colouring and says why.
 *
 * <p>Runs before {@link Parallelism}; reports one line per rewritten store. Without the element nothing changes:
 * a loop with an indirect increment stays on the host with the dependence test's reason.
 */
public final class Increments {
    private Increments() {
    }

    /**
     * The regions with the marked loops' indirect increments made atomic, and the regions whose outer loop is to run
     * colour by colour with their {@link ColourPlan} (not yet lowered: {@link Colours} rewrites the loop once the
     * parallelism pass has decided it); {@code notes} gets one line per rewritten store and per choice.
     *
     * @throws Unsupported naming the loop and line where {@code increments = COLOUR} (or the colouring that
     *     {@code AUTO} chose) cannot be applied
     */
    public static List<Region> apply(List<Region> regions, List<String> notes) {
        List<Region> out = new ArrayList<>();
        for (Region r : regions) {
            innerStrategies(r.loop().body());
            LoopSpec.Increments kind = r.loop().spec().increments();
            if (kind == LoopSpec.Increments.AUTO || kind == LoopSpec.Increments.COLOUR) {
                List<Found> found = new ArrayList<>();
                java.util.Set<Var> setInLoop = new java.util.HashSet<>();
                Dataflow.assigned(r.loop().body(), setInLoop);
                find(r.loop().body(), new HashMap<>(), new HashMap<>(), setInLoop, found);
                if (found.isEmpty()) {
                    notes.add("line " + r.loop().line() + ": @Loop(increments = " + kind + ") on the loop over "
                            + r.loop().index().name() + ", which has no increment at a subscript read from memory");
                    out.add(r);
                    continue;
                }
                String why = null;
                if (kind == LoopSpec.Increments.AUTO) {
                    Found f = found.stream().filter(x -> x.store().array().elem() == Elem.FLOAT).findFirst().orElse(null);
                    if (f == null) {
                        notes.add("line " + r.loop().line() + ": @Loop(increments = AUTO) on the loop over "
                                + r.loop().index().name() + " chose atomics: every increment is of an int, long or "
                                + "double, which the device adds atomically in one instruction, and a global colouring "
                                + "gives up the reuse of the elements' data between neighbouring iterations (Balogh, "
                                + "Reguly and Mudalige)");
                        Stmt.For loop = (Stmt.For) rewrite(r.loop(), true, new HashMap<>(), notes);
                        out.add(r.withLoop(loop));
                        continue;
                    }
                    why = "@Loop(increments = AUTO) chose colouring: " + f.store().array().name() + " at line "
                            + f.store().line() + " holds floats, whose atomic add is a compare-and-swap loop here "
                            + "(atom.add.f32 flushes subnormals, Java does not)";
                } else {
                    why = "@Loop(increments = COLOUR)";
                }
                out.add(r.coloured(plan(r, found, why, notes, false)));
                continue;
            }
            Stmt.For loop = (Stmt.For) rewrite(r.loop(), false, new HashMap<>(), notes);
            Region unmarked = loop == r.loop() ? r : r.withLoop(loop);
            out.add(kind == LoopSpec.Increments.NONE && !r.loop().spec().independent() ? inOrder(unmarked, notes)
                    : unmarked);
        }
        return out;
    }

    /**
     * A region whose outer loop has no {@code increments} element but increments elements through an index array,
     * given the strategy that keeps Java's results bit for bit: atomic adds when every such increment is of an
     * {@code int} or {@code long} (wrapping adds give one sum in any order: {@code bins[data[i]]++}); otherwise, for
     * {@code float} and {@code double} sums, a colouring that keeps each element's increments in the loop's order
     * ({@link ColourPlan#inOrder}: {@code y[row[i]] += x[col[i]] * val[i]}), where colouring can take every such
     * increment. Otherwise unchanged: the dependence test then names the race and the elements that would resolve it.
     */
    private static Region inOrder(Region r, List<String> notes) {
        List<Found> found = new ArrayList<>();
        java.util.Set<Var> setInLoop = new java.util.HashSet<>();
        Dataflow.assigned(r.loop().body(), setInLoop);
        find(r.loop().body(), new HashMap<>(), new HashMap<>(), setInLoop, found);
        if (found.isEmpty()) {
            return r;
        }
        boolean integral = found.stream().allMatch(f -> f.store().array().elem() == Elem.INT
                || f.store().array().elem() == Elem.LONG);
        if (integral || sameValueEverywhere(r.loop(), found, setInLoop)) {
            List<String> atomicNotes = new ArrayList<>();
            Stmt.For loop = (Stmt.For) rewrite(r.loop(), true, new HashMap<>(), atomicNotes);
            atomicNotes.replaceAll(n -> n.replace("(@Loop(increments = ATOMIC))", integral
                    ? "(integer adds: one sum in any order)"
                    : "(integer adds, and adds of one value that no iteration changes: one result in any order)")
                    .replace("; the sums come out in the device's order", ""));
            notes.addAll(atomicNotes);
            return r.withLoop(loop);
        }
        List<String> planNotes = new ArrayList<>();
        try {
            Region coloured = r.coloured(plan(r, found, "increments through an index array", planNotes, true));
            notes.addAll(planNotes);
            return coloured;
        } catch (Unsupported u) {
            return r;
        }
    }

    /**
     * Whether every {@code float} and {@code double} increment of {@code found} adds one value that no iteration
     * changes (a constant, or locals, parameters and fields the nest does not assign: {@code q[l] += 1.0}), the same
     * for every increment of its array. Adding the same value {@code c} to an element {@code k} times gives
     * {@code fl(...fl(fl(x + c) + c)...)} whichever iterations do it, so atomic adds give Java's result bit for bit.
     */
    private static boolean sameValueEverywhere(Stmt.For loop, List<Found> found, java.util.Set<Var> setInLoop) {
        java.util.Set<Var> indices = new java.util.HashSet<>();
        indices.add(loop.index());
        Dataflow.loopIndices(loop.body(), indices);
        Map<ArrayRef, Expr> values = new HashMap<>();
        for (Found f : found) {
            Elem e = f.store().array().elem();
            if (e == Elem.INT || e == Elem.LONG) {
                continue;
            }
            Expr v = increment(f.store());
            boolean uniform = !Exprs.any(v, x -> x instanceof Expr.Load || x instanceof Expr.Length
                    || x instanceof Expr.Local l && (setInLoop.contains(l.var()) || indices.contains(l.var())));
            Expr before = values.putIfAbsent(f.store().array(), v);
            if (!uniform || before != null && !before.equals(v)) {
                return false;
            }
        }
        return true;
    }

    /** An indirect increment {@code a[x] += v} ({@code -=}) found in a coloured loop. */
    private record Found(Stmt.Store store, Expr subscript, Map<Var, Expr> defs, Map<Var, long[]> ranges) {
    }

    /** {@code COLOUR} and {@code AUTO} belong on the outer loop of a nest. */
    private static void innerStrategies(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                LoopSpec.Increments k = f.spec().increments();
                if (k == LoopSpec.Increments.COLOUR || k == LoopSpec.Increments.AUTO) {
                    throw new Unsupported(f.line(), "@Loop(increments = " + k + ") on the loop over " + f.index().name()
                            + ", which is nested in another loop: only the outer loop of a nest is coloured");
                }
                innerStrategies(f.body());
            } else if (s instanceof Stmt.If i) {
                innerStrategies(i.then());
                innerStrategies(i.otherwise());
            } else if (s instanceof Stmt.While w) {
                innerStrategies(w.body());
            }
        }
    }

    /** The indirect increments of {@code stmts}, in order, each with the locals' definitions where it stands. */
    private static void find(List<Stmt> stmts, Map<Var, Expr> defs, Map<Var, long[]> ranges, java.util.Set<Var> setInLoop,
                             List<Found> found) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                defs.put(a.var(), a.value());
                ranges.remove(a.var());
            } else if (s instanceof Stmt.For f) {
                Map<Var, long[]> inner = new HashMap<>(ranges);
                inner.remove(f.index());
                // an inner loop's index with constant bounds: a range of offsets (res[4*a + k], k < 4)
                if (f.lower() instanceof Expr.Const lo && f.bound() instanceof Expr.Const hi && f.step() > 0
                        && f.stride() == null && (f.cond() == Cond.LT || f.cond() == Cond.LE) && !assigns(f.body(),
                        f.index())) {
                    long last = f.cond() == Cond.LT ? hi.bits() - 1 : hi.bits();
                    if (last >= lo.bits()) {
                        inner.put(f.index(), new long[] {lo.bits(), last});
                    }
                }
                find(f.body(), new HashMap<>(defs), inner, setInLoop, found);
                forget(f.body(), defs, ranges);
            } else if (s instanceof Stmt.If i) {
                find(i.then(), new HashMap<>(defs), ranges, setInLoop, found);
                find(i.otherwise(), new HashMap<>(defs), ranges, setInLoop, found);
                forget(i.then(), defs, ranges);
                forget(i.otherwise(), defs, ranges);
            } else if (s instanceof Stmt.While w) {
                find(w.body(), new HashMap<>(defs), ranges, setInLoop, found);
                forget(w.body(), defs, ranges);
            } else if (s instanceof Stmt.Store st && increment(st) != null
                    && (readsMemory(st.index(), defs, 0) || (st.row() != null && readsMemory(st.row(), defs, 0))
                    || Exprs.any(st.index(), x -> x instanceof Expr.Local l && !defs.containsKey(l.var())
                    && !ranges.containsKey(l.var()) && setInLoop.contains(l.var())))) {
                // read from memory, or through a local with no one definition here: colouring must account for it
                found.add(new Found(st, st.index(), new HashMap<>(defs), ranges));
            }
        }
    }

    /** A local a nested block may set has no one definition after it. */
    private static void forget(List<Stmt> block, Map<Var, Expr> defs, Map<Var, long[]> ranges) {
        java.util.Set<Var> set = new java.util.HashSet<>();
        Dataflow.assigned(block, set);
        defs.keySet().removeAll(set);
        ranges.keySet().removeAll(set);
    }

    private static boolean assigns(List<Stmt> body, Var v) {
        java.util.Set<Var> out = new java.util.HashSet<>();
        Dataflow.assigned(body, out);
        return out.contains(v);
    }

    /** {@code v} of {@code a[x] = a[x] + v}, {@code v + a[x]} or {@code a[x] - v} (then {@code -v}), else null. */
    private static Expr increment(Stmt.Store st) {
        if (!(st.value() instanceof Expr.Binary b) || (b.op() != BinOp.ADD && b.op() != BinOp.SUB)) {
            return null;
        }
        Expr old = new Expr.Load(st.array(), st.row(), st.index());
        if (b.left().equals(old)) {
            return b.op() == BinOp.ADD ? b.right() : new Expr.Unary(UnOp.NEG, b.right());
        }
        return b.op() == BinOp.ADD && b.right().equals(old) ? b.left() : null;
    }

    /** The colour plan of {@code r}'s increments, or a diagnostic naming the first that colouring cannot take. */
    private static ColourPlan plan(Region r, List<Found> found, String why, List<String> notes, boolean inOrder) {
        Stmt.For loop = r.loop();
        String at = "@Loop(increments = COLOUR) on the loop over " + loop.index().name() + ": ";
        if (loop.step() != 1 || (loop.cond() != Cond.LT && loop.cond() != Cond.LE) || loop.stride() != null
                || loop.spec().collapse() != 1) {
            throw new Unsupported(loop.line(), at + "the loop must count up by 1 with < or <= and collapse nothing");
        }
        if (!r.reductions().isEmpty()) {
            throw new Unsupported(loop.line(), at + "the loop also reduces into " + r.reductions().get(0).var().name()
                    + ", which one launch per colour does not combine");
        }
        List<ArrayRef> maps = new ArrayList<>();
        Map<ArrayRef, Integer> scales = new java.util.LinkedHashMap<>();
        for (Found f : found) {
            Stmt.Store st = f.store();
            String name = st.array().name();
            Elem e = st.array().elem();
            if (st.row() != null || (e != Elem.INT && e != Elem.LONG && e != Elem.FLOAT && e != Elem.DOUBLE)) {
                throw new Unsupported(st.line(), at + "the increment of " + name + " at line " + st.line()
                        + " is not into a one-dimensional int, long, float or double array");
            }
            long[] form = affine(f.subscript(), loop.index(), f.defs(), f.ranges(), maps, 0);
            if (form == null) {
                throw new Unsupported(st.line(), at + "the subscript of " + name + " at line " + st.line() + " ("
                        + st.index() + ") is not m[" + loop.index().name() + "] or a*m[" + loop.index().name()
                        + "] + k for one int[] index array m read at the loop's index (use increments = ATOMIC)");
            }
            long scale = form[0];
            if (scale < 1 || scale > Integer.MAX_VALUE || form[1] < 0 || form[2] >= scale) {
                throw new Unsupported(st.line(), at + "the subscript of " + name + " at line " + st.line() + " ("
                        + st.index() + ") is a*m[" + loop.index().name() + "] + k with a = " + scale + " and k = "
                        + (form[1] == form[2] ? form[1] : "[" + form[1] + ", " + form[2] + "]")
                        + ": colouring needs a >= 1 and 0 <= k < a, so that two iterations meet only where their m "
                        + "values do");
            }
            Integer before = scales.putIfAbsent(st.array(), (int) scale);
            if (before != null && before != scale) {
                throw new Unsupported(st.line(), at + name + " is incremented at scales " + before + " and " + scale
                        + " of its index arrays (line " + st.line() + "): colouring needs one scale per array");
            }
        }
        for (ArrayRef m : maps) {
            if (m.source() instanceof ArrayRef.Private) {
                throw new Unsupported(loop.line(), at + "the index array " + m.name() + " is allocated in the loop");
            }
            int line = writes(loop.body(), m);
            if (line >= 0) {
                throw new Unsupported(line, at + "the loop writes its index array " + m.name() + " (line " + line
                        + "), so a colouring made before the launch would not hold");
            }
        }
        java.util.Set<Stmt.Store> coloured = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        found.forEach(f -> coloured.add(f.store()));
        for (ArrayRef a : scales.keySet()) {
            Stmt.Store other = otherStore(loop.body(), a, coloured);
            if (other != null) {
                throw new Unsupported(other.line(), at + a.name() + " is also written at line " + other.line() + " ("
                        + a.name() + "[" + other.index() + "]), not by an increment through an index array: iterations "
                        + "of one colour could meet there");
            }
        }
        List<ColourPlan.Target> targets = new ArrayList<>();
        scales.forEach((a, s) -> targets.add(new ColourPlan.Target(a, s)));
        int slot = COLOUR_SLOTS + 3 * r.ordinal();
        Var start = new Var(slot, Type.I32, "colourStart" + r.ordinal());
        Var end = new Var(slot + 1, Type.I32, "colourEnd" + r.ordinal());
        ArrayRef order = new ArrayRef(new ArrayRef.ColourOrder("colourOrder" + r.ordinal(), r.ordinal()), Elem.INT);
        StringBuilder through = new StringBuilder();
        for (ColourPlan.Target t : targets) {
            through.append(through.length() > 0 ? ", " : "").append(t.array().name())
                    .append(t.scale() > 1 ? " (" + t.scale() + " elements per index)" : "");
        }
        notes.add("line " + loop.line() + ": " + why + ": the loop over " + loop.index().name() + " runs colour by "
                + "colour, its iterations coloured at the launch so that no two of a colour share an element of "
                + through + " through " + String.join(", ", maps.stream().map(ArrayRef::name).toList())
                + (inOrder ? ", each element's iterations in increasing colours; plain adds, one launch per colour"
                + " (each element's increments in the loop's order: Java's sums)"
                : "; plain adds, one launch per colour (float sums in another order than Java's)"));
        return new ColourPlan(loop.index(), loop.lower(), loop.bound(), loop.cond() == Cond.LE, maps, targets, start,
                end, order, why, false, inOrder);
    }

    /** First slot of the locals of a coloured loop (a colour's bounds and its position, three per region), above any slot javac gives. */
    static final int COLOUR_SLOTS = 65000;

    /**
     * {@code {a, kmin, kmax}} when {@code x} is {@code a*m[item] + k} for one index array {@code m} (added to
     * {@code maps}) and {@code k} a constant or an inner loop's index in {@code ranges}, through the locals'
     * definitions; else null.
     */
    private static long[] affine(Expr x, Var item, Map<Var, Expr> defs, Map<Var, long[]> ranges, List<ArrayRef> maps,
                                 int depth) {
        if (depth > 8) {
            return null;
        }
        if (x instanceof Expr.Local l && !l.var().equals(item) && !ranges.containsKey(l.var())
                && defs.containsKey(l.var())) {
            return affine(defs.get(l.var()), item, defs, ranges, maps, depth + 1);
        }
        if (x instanceof Expr.Load ld && ld.row() == null && ld.array().dims() == 1 && ld.array().elem() == Elem.INT
                && ld.index() instanceof Expr.Local i && i.var().equals(item)) {
            if (!maps.contains(ld.array())) {
                maps.add(ld.array());
            }
            return new long[] {1, 0, 0};
        }
        if (x instanceof Expr.Binary b && (b.op() == BinOp.ADD || b.op() == BinOp.SUB || b.op() == BinOp.MUL)) {
            long[] kl = offsets(b.left(), defs, ranges, 0);
            long[] kr = offsets(b.right(), defs, ranges, 0);
            if (b.op() == BinOp.MUL && (kl == null) != (kr == null)) {
                long[] c = kl == null ? kr : kl;
                long[] f = affine(kl == null ? b.left() : b.right(), item, defs, ranges, maps, depth + 1);
                return f == null || c[0] != c[1] || c[0] < 1 ? null : new long[] {f[0] * c[0], f[1] * c[0], f[2] * c[0]};
            }
            if (b.op() == BinOp.ADD && (kl == null) != (kr == null)) {
                long[] c = kl == null ? kr : kl;
                long[] f = affine(kl == null ? b.left() : b.right(), item, defs, ranges, maps, depth + 1);
                return f == null ? null : new long[] {f[0], f[1] + c[0], f[2] + c[1]};
            }
            if (b.op() == BinOp.SUB && kl == null && kr != null) {
                long[] f = affine(b.left(), item, defs, ranges, maps, depth + 1);
                return f == null ? null : new long[] {f[0], f[1] - kr[1], f[2] - kr[0]};
            }
        }
        return null;
    }

    /** {@code {min, max}} of an int constant or an inner loop's index, through the locals' definitions; else null. */
    private static long[] offsets(Expr x, Map<Var, Expr> defs, Map<Var, long[]> ranges, int depth) {
        if (x instanceof Expr.Local l && ranges.containsKey(l.var())) {
            return ranges.get(l.var());
        }
        Long c = constant(x, defs, depth);
        return c == null ? null : new long[] {c, c};
    }

    /** The value of an int constant, through the locals' definitions; else null. */
    private static Long constant(Expr x, Map<Var, Expr> defs, int depth) {
        if (x instanceof Expr.Const c && c.type() == Type.I32) {
            return c.bits();
        }
        if (x instanceof Expr.Local l && depth < 8 && defs.containsKey(l.var())) {
            return constant(defs.get(l.var()), defs, depth + 1);
        }
        return null;
    }

    /** The first store to {@code a} in {@code stmts} that is not one of {@code coloured}, or null. */
    private static Stmt.Store otherStore(List<Stmt> stmts, ArrayRef a, java.util.Set<Stmt.Store> coloured) {
        for (Stmt s : stmts) {
            Stmt.Store out = null;
            if (s instanceof Stmt.Store st && st.array().equals(a) && !coloured.contains(st)) {
                return st;
            } else if (s instanceof Stmt.For f) {
                out = otherStore(f.body(), a, coloured);
            } else if (s instanceof Stmt.If i) {
                out = otherStore(i.then(), a, coloured);
                out = out != null ? out : otherStore(i.otherwise(), a, coloured);
            } else if (s instanceof Stmt.While w) {
                out = otherStore(w.body(), a, coloured);
            }
            if (out != null) {
                return out;
            }
        }
        return null;
    }

    /** The line of the first write to {@code a} in {@code stmts}, or -1. */
    private static int writes(List<Stmt> stmts, ArrayRef a) {
        for (Stmt s : stmts) {
            int line = -1;
            if (s instanceof Stmt.Store st && st.array().equals(a) || s instanceof Stmt.Atomic at && at.array().equals(a)
                    && at.op().writes()) {
                return s.line();
            } else if (s instanceof Stmt.For f) {
                line = writes(f.body(), a);
            } else if (s instanceof Stmt.If i) {
                line = writes(i.then(), a);
                line = line >= 0 ? line : writes(i.otherwise(), a);
            } else if (s instanceof Stmt.While w) {
                line = writes(w.body(), a);
            }
            if (line >= 0) {
                return line;
            }
        }
        return -1;
    }

    private static List<Stmt> rewrite(List<Stmt> stmts, boolean atomic, Map<Var, Expr> defs, List<String> notes) {
        List<Stmt> out = new ArrayList<>();
        boolean changed = false;
        for (Stmt s : stmts) {
            Stmt t = rewrite(s, atomic, defs, notes);
            changed |= t != s;
            out.add(t);
        }
        return changed ? out : stmts;
    }

    private static Stmt rewrite(Stmt s, boolean atomic, Map<Var, Expr> defs, List<String> notes) {
        if (s instanceof Stmt.Assign a) {
            defs.put(a.var(), a.value());
            return s;
        }
        if (s instanceof Stmt.For f) {
            boolean inner = atomic || f.spec().atomicIncrements();
            List<Stmt> body = rewrite(f.body(), inner, new HashMap<>(defs), notes);
            return body == f.body() ? f : f.withBody(body);
        }
        if (s instanceof Stmt.If i) {
            List<Stmt> then = rewrite(i.then(), atomic, new HashMap<>(defs), notes);
            List<Stmt> otherwise = rewrite(i.otherwise(), atomic, new HashMap<>(defs), notes);
            return then == i.then() && otherwise == i.otherwise() ? i : new Stmt.If(i.cond(), then, otherwise, i.line());
        }
        if (s instanceof Stmt.While w) {
            List<Stmt> body = rewrite(w.body(), atomic, new HashMap<>(defs), notes);
            return body == w.body() ? w : new Stmt.While(w.cond(), body, w.line());
        }
        if (!atomic || !(s instanceof Stmt.Store st) || !(st.value() instanceof Expr.Binary b)
                || (b.op() != BinOp.ADD && b.op() != BinOp.SUB)) {
            return s;
        }
        Elem e = st.array().elem();
        if (e != Elem.INT && e != Elem.LONG && e != Elem.FLOAT && e != Elem.DOUBLE) {
            return s;
        }
        Expr old = new Expr.Load(st.array(), st.row(), st.index());
        Expr v;
        if (b.left().equals(old)) {
            v = b.op() == BinOp.ADD ? b.right() : new Expr.Unary(UnOp.NEG, b.right());
        } else if (b.op() == BinOp.ADD && b.right().equals(old)) {
            v = b.left();
        } else {
            return s;
        }
        if (!readsMemory(st.index(), defs, 0) && (st.row() == null || !readsMemory(st.row(), defs, 0))) {
            return s;
        }
        notes.add("line " + st.line() + ": " + st.array().name() + "[...] " + (b.op() == BinOp.ADD ? "+=" : "-=")
                + " at a subscript read from memory becomes an atomic add (@Loop(increments = ATOMIC))"
                + (st.array().element().isFloat() ? "; the sums come out in the device's order" : ""));
        return new Stmt.Atomic(AtomicOp.ADD, st.array(), st.row(), st.index(), List.of(v), null, st.line());
    }

    /** Whether {@code e} loads from an array, directly or through the locals the body set before it. */
    private static boolean readsMemory(Expr e, Map<Var, Expr> defs, int depth) {
        boolean[] found = {false};
        Dataflow.forEach(e, x -> {
            if (x instanceof Expr.Load) {
                found[0] = true;
            } else if (x instanceof Expr.Local l && depth < 8 && defs.containsKey(l.var())
                    && readsMemory(defs.get(l.var()), defs, depth + 1)) {
                found[0] = true;
            }
        });
        return found[0];
    }
}
