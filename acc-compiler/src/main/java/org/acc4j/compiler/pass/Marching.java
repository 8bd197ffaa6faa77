package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.LoopSpec;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;

/**
 * Marching stencils: a nest of 2 or 3 parallel loops that reads arrays at constant offsets along the dimension of
 * largest stride is rewritten so that each thread walks a chunk of that dimension sequentially and keeps the
 * values along it in registers (2.5D blocking for 3D grids, the scheme of "3.5-D Blocking Optimization for Stencil
 * Computations on Modern CPUs and GPUs" by Nguyen, Satish, Chhugani, Kim and Dubey, with the planes' centre
 * column held in registers rather than shared memory).
 *
 * <p>The shape: a perfect nest of 2 or 3 loops, none annotated, each a level of its own in the parallelism
 * pass's mapping, counting up by 1 with bounds invariant in the nest; the innermost body assigns locals and
 * stores into one-dimensional arrays, and reads one-dimensional arrays that the nest does not write, with no
 * integer division (it could throw) and no other statement. The subscripts are polynomials over {@code int}
 * (wrapping, as Java computes them) in the loop indices and invariants. The loop whose coefficient in the first
 * store's subscript is 1 goes on x; the marched loop is the one whose coefficient has the highest degree (the
 * outer dimension in memory), with a constant lower bound of at least 0 and {@code <}; for 3D the remaining loop
 * goes on y. Loads of one array whose subscripts differ by whole multiples {@code d} of the marched loop's
 * coefficient form a column: at the marched index {@code k}, the load at offset {@code d} is the element the load
 * at {@code d + 1} read at {@code k - 1}.
 *
 * <p>The rewritten nest: a parallel loop over chunks of {@link #CHUNK} iterations of the marched loop (grid z for
 * 3D, y for 2D), the thread loops, then the marched loop over the chunk. Before the first statement that reads a
 * column, its registers are set: at the chunk's first step every offset is loaded; at later steps the register of
 * offset {@code d} takes the one of {@code d + 1} (in increasing {@code d}) when {@code d + 1} is an offset, and
 * is loaded otherwise. A load whose subscript does not depend on the marched index (a window's weight) is a column
 * of its own that is loaded at the chunk's first step only (with {@link Shape#fixed()}). The body then reads the
 * registers in place of the loads. A window summed by constant-trip loops reaches this pass unrolled
 * ({@link Unrolling}).
 *
 * <p>A 3D nest of this shape is by default kept at one point per thread ({@link #POINTS}, {@link #ALIGN}), faster
 * on an H100 than marched at five of the six sample sizes: the neighbours along x and y are loaded either way.
 *
 * <p>Invariants kept: every load the kernel issues is one Java's iteration at the same index makes, so it is in
 * bounds whenever the host's proofs hold ({@link Bounds}); the variant is launched only then, else the checked
 * kernel runs and raises Java's exception. A register holds the element the replaced load would read, since the
 * subscripts' polynomials agree and the array is not written by the nest (the runtime refuses a call that binds an
 * array the call writes under two names). Each iteration runs once with the same expressions in the same order,
 * so results are Java's bit for bit; only the order of iterations across threads changes, which the parallelism
 * pass has allowed.
 */
public final class Marching {
    /** Iterations of the marched loop per thread: the registers are reloaded at each chunk's start. */
    public static final int CHUNK = 16;
    /** Threads of a block along x and y for 3D nests, along x for 2D nests. */
    public static final int BLOCK_X = 32;
    public static final int BLOCK_Y = 8;
    public static final int BLOCK_2D = 128;
    /** Iterations of the marched loop per thread for 2D nests: 0, {@link MarchSteps#chunkFor}'s for the nest. */
    public static final int CHUNK_2D = 0;
    /** Steps of a 3D chunk's loop in one pass after its first step (0: one loop testing for the first at each). */
    public static final int UNROLL = 0;
    /** Whether threads of a 3D marched kernel whose grid covers the nest take a path without loops back. */
    public static final boolean ONCE = false;
    /** The marched kernels' mapping name; with {@link #MAPPING_ONCE} for 3D kernels whose shape has {@code once}. */
    public static final String MAPPING = "marched stencil";
    public static final String MAPPING_ONCE = "marched stencil, one pass a level where the grid covers it";
    /** The block of a 3D nest kept at one point per thread (null: 3D nests march), and whether its x is aligned. */
    public static final PointBlock POINTS = new PointBlock(64, 2, 2);
    public static final boolean ALIGN = true;

    private Marching() {
    }

    /**
     * The marched kernels' shape: the chunk of the marched loop each thread walks (3D and 2D nests), the block, and
     * whether loads that do not depend on the marched index stay in registers for the chunk ({@code fixed}). The
     * default is {@link #DEFAULT}; {@value #PROPERTY} (else {@value #ENV}) overrides it for measurements, as
     * {@code off} (no nest marched) or {@code key=value,...} over {@code chunk}, {@code chunk2d}, {@code block}
     * ({@code 32x8}), {@code block2d}, {@code fixed}, {@code prefetch}, {@code gaps}, {@code rows} and more (docs/guide.md).
     */
    public record Shape(boolean on, int chunk, int chunk2d, int blockX, int blockY, int block2d, boolean fixed,
                        boolean prefetch, boolean gaps, boolean rows, int unroll, boolean once, PointBlock points,
                        boolean align) {
        public static final String PROPERTY = "acc4j.march";
        public static final String ENV = "ACC4J_MARCH";
        public static final Shape DEFAULT = new Shape(true, CHUNK, CHUNK_2D, BLOCK_X, BLOCK_Y, BLOCK_2D, true, false, false, false);

        /** A shape whose 3D chunks keep one loop over their steps ({@code unroll} 0). */
        public Shape(boolean on, int chunk, int chunk2d, int blockX, int blockY, int block2d, boolean fixed,
                     boolean prefetch, boolean gaps, boolean rows) {
            this(on, chunk, chunk2d, blockX, blockY, block2d, fixed, prefetch, gaps, rows, UNROLL, ONCE, POINTS, ALIGN);
        }

        /**
         * This shape with 3D chunks unrolled {@code by} steps (0: one loop over the steps) and, with {@code once}, a
         * path without loops back for the threads of a 3D kernel whose grid covers its three levels; with
         * {@code points}, 3D nests keep one point per thread in blocks of that shape instead of marching.
         */
        public Shape withSteps(int by, boolean once, PointBlock points) {
            return new Shape(on, chunk, chunk2d, blockX, blockY, block2d, fixed, prefetch, gaps, rows, by, once,
                    points, align);
        }

        /** This shape with the x threads of 3D nests kept at one point per thread aligned or not ({@link #ALIGN}). */
        public Shape withAlign(boolean aligned) {
            return new Shape(on, chunk, chunk2d, blockX, blockY, block2d, fixed, prefetch, gaps, rows, unroll, once, points, aligned);
        }

        /** A shape whose columns keep their gaps ({@code gaps} off). */
        public Shape(boolean on, int chunk, int chunk2d, int blockX, int blockY, int block2d, boolean fixed,
                     boolean prefetch) {
            this(on, chunk, chunk2d, blockX, blockY, block2d, fixed, prefetch, false, false);
        }

        /** The shape the setting asks for; the default where it is unset or an entry cannot be read. */
        public static Shape configured() {
            String r = System.getProperty(PROPERTY);
            if (r == null || r.isBlank()) {
                r = System.getenv(ENV);
            }
            return r == null || r.isBlank() ? DEFAULT : parse(r.trim());
        }

        /** {@code text} over the default: {@code off}, or {@code key=value} entries separated by commas. */
        public static Shape parse(String text) {
            if (text.equals("off")) {
                return new Shape(false, CHUNK, CHUNK, BLOCK_X, BLOCK_Y, BLOCK_2D, true, false);
            }
            Shape s = DEFAULT;
            int unroll = DEFAULT.unroll;
            boolean once = DEFAULT.once;
            PointBlock points = DEFAULT.points;
            boolean align = DEFAULT.align;
            for (String entry : text.split(",")) {
                String[] kv = entry.trim().split("=", 2);
                if (kv.length != 2) {
                    continue;
                }
                String v = kv[1].trim();
                try {
                    if (kv[0].trim().equals("unroll")) {
                        unroll = v.equals("off") ? 0 : unrolling(v);
                        continue;
                    }
                    if (kv[0].trim().equals("once")) {
                        once = v.equals("on");
                        continue;
                    }
                    if (kv[0].trim().equals("align")) {
                        align = v.equals("on");
                        continue;
                    }
                    if (kv[0].trim().equals("points")) {
                        points = v.equals("off") ? null : PointBlock.parse(v);
                        continue;
                    }
                    s = switch (kv[0].trim()) {
                        case "chunk" -> new Shape(s.on, positive(v), s.chunk2d, s.blockX, s.blockY, s.block2d, s.fixed,
                                s.prefetch, s.gaps, s.rows);
                        case "chunk2d" -> new Shape(s.on, s.chunk, positive(v), s.blockX, s.blockY, s.block2d, s.fixed,
                                s.prefetch, s.gaps, s.rows);
                        case "block" -> {
                            String[] xy = v.split("x");
                            yield new Shape(s.on, s.chunk, s.chunk2d, positive(xy[0]), positive(xy[1]), s.block2d,
                                    s.fixed, s.prefetch, s.gaps, s.rows);
                        }
                        case "block2d" -> new Shape(s.on, s.chunk, s.chunk2d, s.blockX, s.blockY, positive(v), s.fixed,
                                s.prefetch, s.gaps, s.rows);
                        case "fixed" -> new Shape(s.on, s.chunk, s.chunk2d, s.blockX, s.blockY, s.block2d,
                                !v.equals("off"), s.prefetch, s.gaps, s.rows);
                        case "prefetch" -> new Shape(s.on, s.chunk, s.chunk2d, s.blockX, s.blockY, s.block2d, s.fixed,
                                !v.equals("off"), s.gaps, s.rows);
                        case "gaps" -> new Shape(s.on, s.chunk, s.chunk2d, s.blockX, s.blockY, s.block2d, s.fixed,
                                s.prefetch, v.equals("on"), s.rows);
                        case "rows" -> new Shape(s.on, s.chunk, s.chunk2d, s.blockX, s.blockY, s.block2d, s.fixed,
                                s.prefetch, s.gaps, v.equals("on"));
                        default -> s;
                    };
                } catch (RuntimeException e) {
                    // an entry that cannot be read leaves the shape as it was
                }
            }
            return s.withSteps(unroll, once, points).withAlign(align);
        }

        /** 1, 2, 4 or 8. */
        private static int unrolling(String v) {
            int n = Integer.parseInt(v.trim());
            if (n < 1 || n > 8 || Integer.bitCount(n) != 1) {
                throw new IllegalArgumentException(v);
            }
            return n;
        }

        private static int positive(String v) {
            int n = Integer.parseInt(v.trim());
            if (n <= 0 || n > 1024) {
                throw new IllegalArgumentException(v);
            }
            return n;
        }
    }

    /**
     * A rewritten nest: {@code region} is the original with the new loop and mapping (same prologue and checks; its
     * last note is {@code note}, the report's line), {@code unchecked} its loads and stores (their access ids), every
     * one among the host's proofs.
     */
    public record Kernel(Region region, Set<Integer> unchecked, String note) {
    }

    /**
     * The marched form of {@code region}, or null when it has not the shape or no column whose values a step can
     * take from the step before (offsets {@code d} and {@code d + 1}: {@code a[c - n] + a[c + n]} alone is not
     * marched). {@code hoisted}
     * are the region's hoisted bounds checks: every access of the nest must be among them.
     */
    public static Kernel march(MethodBody body, Region region, List<RangeCheck> hoisted) {
        Set<Integer> proven = new HashSet<>();
        hoisted.forEach(c -> proven.add(c.access()));
        return march(body, region, proven);
    }

    /** {@link #march(MethodBody, Region, List)} with the ids of the accesses the host's proofs cover. */
    public static Kernel march(MethodBody body, Region region, Set<Integer> proven) {
        return march(body, region, proven, Shape.configured());
    }

    /** {@link #march(MethodBody, Region, Set)} with the kernel's shape {@code shape}. */
    public static Kernel march(MethodBody body, Region region, Set<Integer> proven, Shape shape) {
        Mapping m = region.mapping();
        if (!shape.on()) {
            return null;
        }
        if (m == null || !region.reductions().isEmpty() || !region.hostVars().isEmpty() || region.scan() != null) {
            return null;
        }
        List<Stmt.For> loops = new ArrayList<>();
        Stmt.For f = region.loop();
        loops.add(f);
        while (f.body().size() == 1 && f.body().get(0) instanceof Stmt.For g) {
            loops.add(g);
            f = g;
        }
        int n = loops.size();
        if (n < 2 || n > 3 || m.levels().size() != n) {
            return null;
        }
        Set<Var> variant = new HashSet<>();
        Dataflow.assigned(List.of(region.loop()), variant);
        for (Stmt.For l : loops) {
            Mapping.Level level = m.levelOf(l);
            if (level == null || level.loops().size() != 1 || !counted(l) || mentions(l.lower(), variant)
                    || mentions(l.bound(), variant)) {
                return null;
            }
        }
        List<Stmt> inner = loops.get(n - 1).body();
        Set<ArrayRef> written = new HashSet<>();
        for (Stmt s : inner) {
            if (s instanceof Stmt.Store st) {
                if (!oneOrTwo(st.array(), st.row()) || !proven.contains(st.access())) {
                    return null;
                }
                written.add(st.array());
            } else if (!(s instanceof Stmt.Assign)) {
                return null;
            }
        }
        List<Expr.Load> loads = new ArrayList<>();
        for (Stmt s : inner) {
            for (Expr e : operands(s)) {
                if (Exprs.any(e, x -> x instanceof Expr.Binary b && (b.op() == BinOp.DIV || b.op() == BinOp.REM)
                        && (b.type() == Type.I32 || b.type() == Type.I64)
                        || x instanceof Expr.Length l && l.row() != null
                        || x instanceof Expr.Load l && (!oneOrTwo(l.array(), l.row()) || written.contains(l.array())
                        || !proven.contains(l.access())))) {
                    return null;
                }
                Dataflow.forEach(e, x -> {
                    if (x instanceof Expr.Load l) {
                        loads.add(l);
                    }
                });
            }
        }
        if (written.isEmpty() || loads.isEmpty()) {
            return null;
        }
        // the body's locals: each assigned once, before it is read, from a polynomial or anything else
        Set<Var> once = Dataflow.assignedOnce(List.of(region.loop()));
        Set<Var> indices = new HashSet<>();
        loops.forEach(l -> indices.add(l.index()));
        Map<Var, Expr> defs = new HashMap<>();
        Map<Var, Integer> definedAt = new HashMap<>();
        for (int p = 0; p < inner.size(); p++) {
            Stmt s = inner.get(p);
            for (Expr e : operands(s)) {
                if (Exprs.any(e, x -> x instanceof Expr.Local l && variant.contains(l.var())
                        && !indices.contains(l.var()) && !definedAt.containsKey(l.var()))) {
                    return null;
                }
            }
            if (s instanceof Stmt.Assign a) {
                if (!once.contains(a.var()) || indices.contains(a.var())) {
                    return null;
                }
                defs.put(a.var(), a.value());
                definedAt.put(a.var(), p);
            }
        }
        Poly.Builder polys = new Poly.Builder(indices, variant, defs);
        Stmt.Store first = (Stmt.Store) inner.stream().filter(s -> s instanceof Stmt.Store).findFirst().orElseThrow();
        Poly ps = of(polys, first.row(), first.index());
        if (ps == null) {
            return null;
        }
        Stmt.For fast = null;
        Stmt.For march = null;
        int best = -1;
        boolean tie = false;
        for (Stmt.For l : loops) {
            Poly c = ps.coefficient(l.index());
            if (c == null || c.isZero()) {
                return null;
            }
            if (c.isOne()) {
                if (fast != null) {
                    return null;
                }
                fast = l;
            } else if (c.degree() > best) {
                best = c.degree();
                march = l;
                tie = false;
            } else if (c.degree() == best) {
                tie = true;
            }
        }
        if (fast == null || march == null || tie || march.cond() != Cond.LT || !(march.lower() instanceof Expr.Const lo)
                || (int) lo.bits() < 0) {
            return null;
        }
        Var k = march.index();
        Poly stride = ps.coefficient(k);
        // a two-dimensional array marches along its rows, one row a step
        // (only with the setting's rows=on: on a heat stencil over double[512][512] it measured slower than the
        // kernel with one point per thread)
        boolean rows = first.row() != null;
        if (rows && (!shape.rows() || !stride.equals(Poly.atom(ROW)))) {
            return null;
        }
        // columns: loads of one array at whole multiples of the stride apart; a load whose subscript does not
        // depend on the marched index reads one element for the whole chunk (a column of one, never reloaded)
        List<Column> columns = new ArrayList<>();
        List<Column> invariant = new ArrayList<>();
        for (Expr.Load l : loads) {
            Poly p = of(polys, l.row(), l.index());
            if (p == null) {
                continue;
            }
            Poly s = p.coefficient(k);
            if (s != null && s.isZero()) {
                Column same = invariant.stream().filter(c -> c.array.equals(l.array()) && c.base.equals(p)).findFirst()
                        .orElse(null);
                if (same == null) {
                    same = new Column(l.array(), p);
                    same.members.put(0, l);
                    invariant.add(same);
                }
                continue;
            }
            if (s == null || !s.equals(stride)) {
                continue;
            }
            boolean joined = false;
            for (Column col : columns) {
                if (col.array.equals(l.array())) {
                    Integer d = p.minus(col.base).multipleOf(stride);
                    if (d != null) {
                        col.members.putIfAbsent(d, l);
                        joined = true;
                        break;
                    }
                }
            }
            if (!joined) {
                Column col = new Column(l.array(), p);
                col.members.put(0, l);
                columns.add(col);
            }
        }
        // a column with gaps between its offsets (Jacobi's i - 1 and i + 1) gets registers for them too, so that each
        // later step loads only its top offset
        int[] nextAccess = {Math.max(Dataflow.lastAccess(body.body()), Dataflow.lastAccess(List.of(region.loop()))) + 1};
        Expr strideValue = rows ? null : stride.toExpr();
        if ((n == 3 ? shape.gaps() : MarchSteps.gaps2d(shape.gaps())) && (strideValue != null || rows)) {
            for (Column col : columns) {
                fillGaps(col, strideValue, nextAccess);
            }
        }
        // a column is worth its registers when some step reuses a value of the step before
        columns.removeIf(c -> c.members.keySet().stream().noneMatch(d -> c.members.containsKey(d + 1)));
        if (columns.isEmpty()) {
            return null;
        }
        if (n == 3 && shape.points() != null) {
            return MarchedSteps.points(region, loops, fast, march, shape.points(), shape.align());
        }
        int columnCount = columns.size();
        if (shape.fixed()) {
            columns.addAll(invariant);
        }
        // a 2D chunk's length follows its tallest column unless the setting gives it
        int tallest = columns.stream().limit(columnCount).mapToInt(c -> ((TreeMap<Integer, Expr.Load>) c.members)
                .lastKey() - ((TreeMap<Integer, Expr.Load>) c.members).firstKey() + 1).max().orElse(1);
        int chunk = n == 3 ? shape.chunk() : shape.chunk2d() > 0 ? shape.chunk2d() : MarchSteps.chunkFor(tallest);
        int next = maxSlot(body, region) + 1;
        Map<Expr.Load, Var> registers = new HashMap<>();
        List<Var> allRegisters = new ArrayList<>();
        Map<Integer, List<Stmt>> firstStep = new HashMap<>();
        Map<Integer, List<Stmt>> laterSteps = new HashMap<>();
        Var kc = new Var(next++, Type.I32, k.name() + "_chunk");
        Expr hi = march.bound();
        Expr left = new Expr.Binary(BinOp.SUB, hi, new Expr.Local(kc));
        Expr end = new Expr.Select(new Expr.Compare(Cond.LT, left, Expr.Const.i32(chunk), false), hi,
                new Expr.Binary(BinOp.ADD, new Expr.Local(kc), Expr.Const.i32(chunk)));
        // with prefetching, the loads of the next step are issued one step ahead (when the chunk has a next step)
        int firstPrefetch = nextAccess[0];
        Expr hasNext = new Expr.Compare(Cond.LT, new Expr.Binary(BinOp.ADD, new Expr.Local(k), Expr.Const.i32(1)), end,
                false);
        StringBuilder read = new StringBuilder();
        Map<String, Integer> others = new TreeMap<>();
        for (Column col : columns) {
            boolean fixed = columns.indexOf(col) >= columnCount;
            // offsets relative to the store when it lies on the column
            Integer shift = ps.minus(col.base).multipleOf(stride);
            Map<Integer, Var> regs = new TreeMap<>();
            for (Map.Entry<Integer, Expr.Load> e : col.members.entrySet()) {
                long before = columns.stream().limit(columns.indexOf(col)).filter(c -> c.array.equals(col.array)).count();
                Var r = new Var(next++, col.array.element(), fixed
                        ? col.array.name() + "_fixed" + (columns.indexOf(col) - columnCount)
                        : col.array.name() + "_" + k.name() + "_" + (e.getKey() < 0 ? "m" + -e.getKey() : "p" + e.getKey())
                        + (before == 0 ? "" : "_c" + before));
                regs.put(e.getKey(), r);
                allRegisters.add(r);
            }
            for (Expr.Load l : loads) {
                Poly p = of(polys, l.row(), l.index());
                if (fixed) {
                    if (l.array().equals(col.array) && col.base.equals(p)) {
                        registers.put(l, regs.get(0));
                    }
                } else if (l.array().equals(col.array) && p != null && stride.equals(p.coefficient(k))) {
                    Integer d = p.minus(col.base).multipleOf(stride);
                    if (d != null && regs.containsKey(d)) {
                        registers.put(l, regs.get(d));
                    }
                }
            }
            int at = 0;
            while (!readsAny(inner.get(at), col.members.values())) {
                at++;
            }
            // every local a member's subscript reads is set before the update
            for (Expr.Load l : col.members.values()) {
                final int pos = at;
                for (Expr subscript : l.row() == null ? List.of(l.index()) : List.of(l.row(), l.index())) {
                    if (Exprs.any(subscript, x -> x instanceof Expr.Local v && definedAt.containsKey(v.var())
                            && definedAt.get(v.var()) >= pos)) {
                        return null;
                    }
                }
            }
            List<Stmt> all = new ArrayList<>();
            List<Stmt> later = new ArrayList<>();
            int line = inner.get(at).line();
            List<Stmt> ahead = new ArrayList<>();
            for (Map.Entry<Integer, Var> e : regs.entrySet()) {
                Expr.Load l = col.members.get(e.getKey());
                Integer below = col.gaps.get(e.getKey());
                if (below != null) {
                    // a gap's element is the one the member below it reads that many steps later: loaded only when
                    // the chunk has that step, so it is a load Java makes, and in bounds whenever the proofs hold
                    Expr reaches = new Expr.Compare(Cond.GT, new Expr.Binary(BinOp.SUB, end, new Expr.Local(k)),
                            Expr.Const.i32(e.getKey() - below), false);
                    all.add(new Stmt.If(reaches, List.of(new Stmt.Assign(e.getValue(), l, line)), List.of(), line));
                } else {
                    all.add(new Stmt.Assign(e.getValue(), l, line));
                }
                Var up = regs.get(e.getKey() + 1);
                if (fixed) {
                    continue;
                }
                if (up == null && shape.prefetch() && strideValue != null) {
                    // the element this member reads at the next step, loaded now: the load Java's next iteration
                    // makes (its subscript one stride further, equal as a polynomial), so it is in bounds
                    Var pre = new Var(next++, col.array.element(), regs.get(e.getKey()).name() + "_next");
                    allRegisters.add(pre);
                    later.add(new Stmt.Assign(e.getValue(), new Expr.Local(pre), line));
                    Expr.Load following = new Expr.Load(l.array(), null, new Expr.Binary(BinOp.ADD, l.index(),
                            strideValue), nextAccess[0]++);
                    ahead.add(new Stmt.If(hasNext, List.of(new Stmt.Assign(pre, following, line)), List.of(), line));
                } else {
                    later.add(new Stmt.Assign(e.getValue(), up != null ? new Expr.Local(up) : l, line));
                }
            }
            all.addAll(ahead);
            later.addAll(ahead);
            firstStep.computeIfAbsent(at, p -> new ArrayList<>()).addAll(all);
            laterSteps.computeIfAbsent(at, p -> new ArrayList<>()).addAll(later);
            if (fixed) {
                continue;
            }
            if (shift == null && columns.stream().limit(columnCount).anyMatch(c -> c != col && c.array.equals(col.array)
                    && ps.minus(c.base).multipleOf(stride) != null)) {
                // a column beside the store's (a window's other columns): counted, not listed
                others.merge(col.array.name(), 1, Integer::sum);
                continue;
            }
            read.append(read.length() > 0 ? "; " : "").append(col.array.name()).append(" is read at ");
            String sep = "";
            for (int d : regs.keySet()) {
                if (col.gaps.containsKey(d)) {
                    continue;
                }
                int o = shift != null ? d - shift : d;
                read.append(sep).append(k.name()).append(o == 0 ? "" : o > 0 ? "+" + o : String.valueOf(o));
                sep = ", ";
            }
        }
        // the body twice, for a chunk's first step and the later ones, reading the registers in place of the loads
        // (the body's stores come first in each branch, so the kernel's parameters keep the plain kernel's order)
        List<Stmt> atStart = new ArrayList<>();
        List<Stmt> rest = new ArrayList<>();
        for (int p = 0; p < inner.size(); p++) {
            // a chunk's first loads in the order of the body's loads (the kernel's parameters follow first uses)
            List<Stmt> loadsFirst = new ArrayList<>(firstStep.getOrDefault(p, List.of()));
            loadsFirst.sort(java.util.Comparator.comparingInt(x -> x instanceof Stmt.Assign a ? firstUse(loads, a.value())
                    : loads.size()));
            atStart.addAll(loadsFirst);
            rest.addAll(laterSteps.getOrDefault(p, List.of()));
            Stmt s = MarchedSteps.replace(inner.get(p), registers);
            atStart.add(s);
            rest.add(s);
        }
        // the registers start at 0 (every one is set at a chunk's first step before it is read)
        List<Stmt> innermost = new ArrayList<>();
        for (Var r : allRegisters) {
            innermost.add(new Stmt.Assign(r, new Expr.Const(r.type(), 0), march.line()));
        }
        int unroll = n == 3 ? shape.unroll() : 0;
        if (unroll == 0) {
            Stmt.If step = new Stmt.If(new Expr.Compare(Cond.EQ, new Expr.Local(k), new Expr.Local(kc), false), atStart,
                    rest, march.line());
            innermost.add(new Stmt.For(k, new Expr.Local(kc), Cond.LT, end, 1, LoopSpec.NONE, List.of(step),
                    march.line()));
        } else {
            next = MarchedSteps.steps(innermost, k, kc, end, atStart, rest, unroll, next, march.line());
        }
        // the nest keeps its order, the marched loop replaced by the loop over its chunks
        Stmt.For[] rebuilt = new Stmt.For[n];
        List<Stmt> below = innermost;
        for (int q = n - 1; q >= 0; q--) {
            Stmt.For l = loops.get(q);
            rebuilt[q] = l == march ? new Stmt.For(kc, march.lower(), Cond.LT, hi, chunk, LoopSpec.NONE, below,
                    march.line()) : l.withBody(below);
            below = List.of(rebuilt[q]);
        }
        int qFast = loops.indexOf(fast);
        int qMarch = loops.indexOf(march);
        List<Mapping.Level> levels = new ArrayList<>();
        List<Mapping.GridDim> grid = new ArrayList<>(List.of(new Mapping.Unused(), new Mapping.Unused(),
                new Mapping.Unused()));
        String geometry;
        int[] block;
        int chunkAxis = n == 3 ? 2 : 1;
        String slowName = "";
        for (int q = 0; q < n; q++) {
            if (q == qFast) {
                levels.add(new Mapping.Level(List.of(rebuilt[q]), 0, 0, "stride 1"));
                grid.set(0, new Mapping.FromTrip(q, n == 3 ? shape.blockX() : shape.block2d(), Integer.MAX_VALUE, 1));
            } else if (q == qMarch) {
                levels.add(new Mapping.Level(List.of(rebuilt[q]), chunkAxis, Mapping.NONE, "chunks of " + k.name()));
                grid.set(chunkAxis, new Mapping.FromTrip(q, 1, 65535, 1));
            } else {
                levels.add(new Mapping.Level(List.of(rebuilt[q]), 1, 1, "block rows"));
                grid.set(1, new Mapping.FromTrip(q, shape.blockY(), 65535, 1));
                slowName = loops.get(q).index().name();
            }
        }
        if (n == 3) {
            block = new int[] {shape.blockX(), shape.blockY(), 1};
            geometry = "blocks of " + shape.blockX() + "x" + shape.blockY() + " threads over " + fast.index().name() + " and " + slowName;
        } else {
            block = new int[] {shape.block2d(), 1, 1};
            geometry = "blocks of " + shape.block2d() + " threads over " + fast.index().name();
        }
        Mapping mapping = new Mapping(levels, block, grid, n == 3 && shape.once() ? MAPPING_ONCE : MAPPING);
        Stmt.For chunks = rebuilt[0];
        others.forEach((a, count) -> read.append(", and in ").append(count).append(" more column")
                .append(count == 1 ? "" : "s").append(" of ").append(a));
        if (columns.size() > columnCount) {
            read.append("; ").append(columns.size() - columnCount).append(" load")
                    .append(columns.size() - columnCount == 1 ? "" : "s").append(" that do not depend on ")
                    .append(k.name()).append(" read once per chunk");
        }
        if (nextAccess[0] > firstPrefetch) {
            read.append("; each step loads the next step's elements");
        }
        String note = "marched along " + k.name() + " with its values in registers: " + read + " (" + geometry
                + ", chunks of " + chunk + " steps of " + k.name() + " per thread"
                + (unroll == 0 ? "" : ", the first step peeled and the later ones run " + unroll + " at a time")
                + (n == 3 && shape.once() ? ", a path without loops back for threads whose grid covers the nest" : "")
                + "; launched when the bounds proofs "
                + "hold, else the checked kernel runs)";
        List<String> notes = new ArrayList<>(region.notes());
        notes.add(note);
        Region out = new Region(region.ordinal(), region.prologue(), chunks, region.why(), mapping, region.checks(),
                notes, region.reductions(), region.hostVars(), region.scan());
        Set<Integer> unchecked = new HashSet<>();
        accesses(List.of(chunks), unchecked);
        return new Kernel(out, unchecked, note);
    }

    /** The most offsets a column's gaps may add: each is a register per thread. */
    static final int MOST_GAPS = 4;

    /**
     * Adds to {@code col} a load at each offset between its least and greatest that no load of the body reads (at most
     * {@link #MOST_GAPS}): its subscript is the nearest member below's plus the offsets between them times the stride,
     * under a new access id from {@code nextAccess}; {@link Column#gaps} keeps that member's offset.
     */
    private static void fillGaps(Column col, Expr strideValue, int[] nextAccess) {
        // strideValue null: a two-dimensional array's column, one row per offset
        int lo = ((TreeMap<Integer, Expr.Load>) col.members).firstKey();
        int hi = ((TreeMap<Integer, Expr.Load>) col.members).lastKey();
        if (hi - lo + 1 - col.members.size() > MOST_GAPS) {
            return;
        }
        int below = lo;
        for (int d = lo + 1; d < hi; d++) {
            Expr.Load member = col.members.get(d);
            if (member != null) {
                below = d;
                continue;
            }
            Expr.Load from = col.members.get(below);
            Expr.Load gap = from.row() != null
                    ? new Expr.Load(from.array(), new Expr.Binary(BinOp.ADD, from.row(), Expr.Const.i32(d - below)),
                            from.index(), nextAccess[0]++)
                    : new Expr.Load(from.array(), null, new Expr.Binary(BinOp.ADD, from.index(),
                            new Expr.Binary(BinOp.MUL, Expr.Const.i32(d - below), strideValue)), nextAccess[0]++);
            col.members.put(d, gap);
            col.gaps.put(d, below);
        }
    }

    /** Loads of one array at whole multiples of the stride from {@code base}, by offset. */
    private static final class Column {
        final ArrayRef array;
        final Poly base;
        final Map<Integer, Expr.Load> members = new TreeMap<>();
        /** Offsets no load of the body reads, each with the offset of the member below it whose element it is later. */
        final Map<Integer, Integer> gaps = new TreeMap<>();

        Column(ArrayRef array, Poly base) {
            this.array = array;
            this.base = base;
        }
    }

    private static boolean counted(Stmt.For f) {
        return f.stride() == null && f.step() == 1 && (f.cond() == Cond.LT || f.cond() == Cond.LE)
                && f.index().type() == Type.I32 && !f.spec().annotated();
    }

    private static boolean mentions(Expr e, Set<Var> vars) {
        return Exprs.any(e, x -> x instanceof Expr.Local l && vars.contains(l.var()));
    }

    /**
     * The atom that stands for a two-dimensional array's row length in its accesses' polynomials: {@code a[r][c]} is
     * {@code r * ROW + c}, so that its column (same {@code c}, rows {@code d} apart) is loads {@code d * ROW} apart, as
     * a flat array's are {@code d * n} apart. No local of a method has its slot.
     */
    static final Expr ROW = new Expr.Local(new Var(-2, Type.I32, "rowLength"));

    /** The polynomial of {@code array[row][index]} ({@code row * ROW + index}), or of {@code array[index]}; or null. */
    private static Poly of(Poly.Builder polys, Expr row, Expr index) {
        Poly c = polys.of(index);
        if (row == null || c == null) {
            return c;
        }
        Poly r = polys.of(row);
        return r == null ? null : r.times(Poly.atom(ROW)).plus(c);
    }

    /** Whether an access has one subscript into a one-dimensional array or two into a two-dimensional one. */
    private static boolean oneOrTwo(ArrayRef array, Expr row) {
        return row == null ? array.dims() == 1 : array.dims() == 2;
    }

    /** The expressions of a body statement: a store's subscripts and value, an assignment's value. */
    private static List<Expr> operands(Stmt s) {
        if (s instanceof Stmt.Store st) {
            return st.row() == null ? List.of(st.index(), st.value()) : List.of(st.row(), st.index(), st.value());
        }
        return List.of(((Stmt.Assign) s).value());
    }

    private static boolean readsAny(Stmt s, java.util.Collection<Expr.Load> loads) {
        List<Expr> es = operands(s);
        for (Expr e : es) {
            if (Exprs.any(e, x -> x instanceof Expr.Load l && loads.contains(l))) {
                return true;
            }
        }
        return false;
    }

    /** The position in {@code loads} of the first load of {@code load}'s array. */
    private static int firstUse(List<Expr.Load> loads, Expr load) {
        ArrayRef a = ((Expr.Load) load).array();
        for (int q = 0; q < loads.size(); q++) {
            if (loads.get(q).array().equals(a)) {
                return q;
            }
        }
        return loads.size();
    }

    /** The ids of the loads and stores of a marched region: every one among the host's proofs. */
    public static Set<Integer> accesses(Region marched) {
        Set<Integer> out = new HashSet<>();
        accesses(List.of(marched.loop()), out);
        return out;
    }

    /** The loads and stores of {@code stmts}, by identity. */
    static void accesses(List<Stmt> stmts, Set<Integer> out) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.For f) {
                accesses(f.body(), out);
            } else if (s instanceof Stmt.If i) {
                accesses(i.then(), out);
                accesses(i.otherwise(), out);
            } else if (s instanceof Stmt.Store st) {
                out.add(st.access());
            }
        }
        for (Expr e : Dataflow.expressions(stmts)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Load l) {
                    out.add(l.access());
                }
            });
        }
    }

    /** The largest local slot the method or the region names. */
    static int maxSlot(MethodBody body, Region region) {
        int[] max = {0};
        for (MethodBody.Param p : body.params()) {
            max[0] = Math.max(max[0], p.slot() + 2);
        }
        List<Stmt> all = new ArrayList<>(body.body());
        all.addAll(region.prologue());
        all.add(region.loop());
        slots(all, max);
        return max[0];
    }

    private static void slots(List<Stmt> stmts, int[] max) {
        Set<Var> vars = new HashSet<>();
        Dataflow.assigned(stmts, vars);
        Dataflow.loopIndices(stmts, vars);
        for (Expr e : Dataflow.expressions(stmts)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Local l) {
                    vars.add(l.var());
                }
            });
        }
        for (Var v : vars) {
            max[0] = Math.max(max[0], v.slot());
        }
    }
}
