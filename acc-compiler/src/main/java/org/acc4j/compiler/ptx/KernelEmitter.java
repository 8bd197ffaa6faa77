package org.acc4j.compiler.ptx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.IrPrinter;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;

/**
 * Lowers one compute region to a PTX kernel with Java's semantics.
 *
 * <p>The outer loop gets the single-loop mapping of the OpenUH paper: gangs are thread blocks, vector lanes
 * are threads, and each thread starts at its global id and strides by {@code gridDim.x * blockDim.x} over the
 * loop's trip count (computed in 64 bits, so no index overflows). Inner loops and the prologue run as Java
 * would, in each thread.
 *
 * <p>Java's rules kept: integer arithmetic wraps; {@code /} and {@code %} truncate, {@code MIN_VALUE / -1}
 * wraps, and a zero divisor raises ArithmeticException; shift counts are masked; floating-point
 * {@code + - * /} round to nearest ({@code .rn}, which also forbids contraction into FMA); float-to-int
 * conversions truncate and saturate with NaN giving 0; every array access is bounds-checked, and a failing
 * check records the site and index in the error record instead of touching memory.
 */
public final class KernelEmitter {
    /** The kernel: its entry name, PTX text, parameters in order, and the sites that can raise. */
    public record Result(String entry, String ptx, List<KernelParam> params, List<ErrorSite> sites) {
    }

    private final MethodBody method;
    final Region region;
    private final PtxWriter w = new PtxWriter();
    private final Expressions exprs = new Expressions(this, w);
    private final Statements lowering = new Statements(this, w);
    final Addresses mem = new Addresses(this, w);

    /** The source line of the statement being emitted, for the error sites and diagnostics it raises. */
    int currentLine;
    private final Map<Var, Reg> vars = new HashMap<>();
    final Map<ArrayRef, Reg> bases = new LinkedHashMap<>();
    final Map<ArrayRef, Reg> lengths = new HashMap<>();
    final Map<ArrayRef.Field, Reg> fields = new LinkedHashMap<>();
    final Set<ArrayRef> written = new LinkedHashSet<>();
    private final List<ErrorSite> sites = new ArrayList<>();
    private final StringBuilder stubs = new StringBuilder();
    final List<Runnable> stubWriters = new ArrayList<>();
    final Set<org.acc4j.templates.MathLibrary.Routine> mathUsed = new LinkedHashSet<>();
    private Reg errBase;
    Reg errCode;
    Reg errDetail;

    /** The access ids of the loads and stores emitted without their bounds checks. */
    final Set<Integer> unchecked;

    /** The host's proofs of those accesses, by access id, where it proved them ({@link Addresses#unchecked}). */
    final Map<Integer, RangeCheck> proofs;

    /** The region's row loop run with a group of lanes per row, or null. */
    private final RowGroup group;

    /** Where an error stub goes: {@code $L_raise}, or inside a row group's inner loop the lane's own exit. */
    String raiseTarget = "$L_raise";

    private KernelEmitter(MethodBody method, Region region, Set<Integer> unchecked, List<RangeCheck> proofs,
                          RowGroup group) {
        this.method = method;
        this.region = region;
        this.unchecked = unchecked;
        Map<Integer, RangeCheck> byAccess = new HashMap<>();
        for (RangeCheck c : proofs) {
            byAccess.put(c.access(), c);
        }
        this.proofs = Map.copyOf(byAccess);
        this.group = group;
    }

    /**
     * Emits the kernel for {@code region} of {@code method}.
     *
     * @param sm the target's compute capability as major*10+minor (90 for an H100)
     */
    public static Result emit(MethodBody method, Region region, String entry, int sm) {
        return emit(method, region, entry, sm, List.of());
    }

    /**
     * Emits the kernel for {@code region} of {@code method} without the bounds checks of the accesses in
     * {@code unchecked} (the access ids of loads and stores), which the runtime proves before the launch.
     */
    public static Result emit(MethodBody method, Region region, String entry, int sm,
                              java.util.Collection<Integer> unchecked) {
        return emit(method, region, entry, sm, unchecked, null);
    }

    /**
     * As {@link #emit(MethodBody, Region, String, int, java.util.Collection)}, running the region's row loop with a
     * group of lanes per row when {@code group} is not null (its last parameter is {@link KernelParam.RowLanes}).
     */
    public static Result emit(MethodBody method, Region region, String entry, int sm,
                              java.util.Collection<Integer> unchecked, RowGroup group) {
        return new KernelEmitter(method, region, Set.copyOf(unchecked), List.of(), group).run(entry, sm, List.of());
    }

    /**
     * The variant launched when the host has proven {@code proven} in bounds: those accesses without their checks,
     * each addressed from its subscript's linear form in 64 bits ({@link Addresses#unchecked}); otherwise as
     * {@link #emit(MethodBody, Region, String, int, java.util.Collection, RowGroup)}.
     */
    public static Result emitProven(MethodBody method, Region region, String entry, int sm, List<RangeCheck> proven,
                                    RowGroup group) {
        Set<Integer> ids = new HashSet<>();
        proven.forEach(c -> ids.add(c.access()));
        return new KernelEmitter(method, region, Set.copyOf(ids), proven, group).run(entry, sm, List.of());
    }

    /**
     * As {@link #emit(MethodBody, Region, String, int, java.util.Collection, RowGroup)} for a rewritten form of a
     * region whose kernel takes {@code like}'s parameters: arrays and scalars come in {@code like}'s order (those not in
     * it after, in the order of first use), so that a variant whose statements read the arrays in another order is
     * launched with the same arguments. The caller compares the result's parameters with {@code like}. An access of
     * {@code unchecked} with a proof in {@code proofs} (the region's loads that the rewrite kept, with their ids) is
     * addressed from its linear form ({@link Addresses#unchecked}).
     */
    public static Result emitLike(MethodBody method, Region region, String entry, int sm,
                                  java.util.Collection<Integer> unchecked, List<KernelParam> like,
                                  List<RangeCheck> proofs) {
        List<RangeCheck> held = proofs.stream().filter(c -> unchecked.contains(c.access())).toList();
        return new KernelEmitter(method, region, Set.copyOf(unchecked), held, null).run(entry, sm, like);
    }

    /** {@code items} sorted by the position of {@code param(item)} in {@code like}, those not in it last, stably. */
    private static <T> List<T> inOrderOf(java.util.Collection<T> items, List<KernelParam> like,
                                         java.util.function.Function<T, KernelParam> param) {
        List<T> sorted = new ArrayList<>(items);
        if (!like.isEmpty()) {
            sorted.sort(java.util.Comparator.comparingInt(t -> {
                int at = like.indexOf(param.apply(t));
                return at < 0 ? Integer.MAX_VALUE : at;
            }));
        }
        return sorted;
    }

    private Result run(String entry, int sm, List<KernelParam> like) {
        List<Stmt> all = new ArrayList<>(region.devicePrologue());
        all.add(region.loop());
        List<KernelParam> params = new ArrayList<>();
        StringBuilder decl = new StringBuilder();
        params.add(new KernelParam.ErrorRecord());
        decl.append("\t.param .u64 p_err");

        Map<ArrayRef, boolean[]> uses = Dataflow.arrayUses(all);
        List<ArrayRef> arrays = inOrderOf(uses.keySet(), like, a -> new KernelParam.ArrayLength(a));
        for (Map.Entry<ArrayRef, boolean[]> u : uses.entrySet()) {
            if (u.getValue()[1]) {
                written.add(u.getKey());
            }
        }
        for (ArrayRef a : arrays) {
            params.add(new KernelParam.ArrayData(a, uses.get(a)[0], written.contains(a)));
            params.add(new KernelParam.ArrayLength(a));
            decl.append(",\n\t.param .u64 p_").append(ident(a.name())).append(",\n\t.param .u32 p_")
                    .append(ident(a.name())).append("_len");
            if (a.dims() == 2) {
                params.add(new KernelParam.RowBlock(a, KernelParam.RowBlock.Part.START));
                params.add(new KernelParam.RowBlock(a, KernelParam.RowBlock.Part.LENGTH));
                decl.append(",\n\t.param .u64 p_").append(ident(a.name())).append("_block,\n\t.param .s32 p_")
                        .append(ident(a.name())).append("_pitch");
            }
        }
        Set<Var> live = new LinkedHashSet<>();
        Dataflow.liveIn(all, live);
        List<Var> liveIn = inOrderOf(live, like, v -> {
            if (region.hostVars().contains(v)) {
                return new KernelParam.HostValue(v);
            }
            MethodBody.Param p = method.paramAtSlot(v.slot());
            return p == null ? null : new KernelParam.Scalar(new ArrayRef.Parameter(p.index(), p.name()), v.type());
        });
        List<Var> scalarParams = new ArrayList<>();
        for (Var v : liveIn) {
            if (region.hostVars().contains(v)) {
                scalarParams.add(v);
                params.add(new KernelParam.HostValue(v));
                decl.append(",\n\t.param .").append(paramType(v.type())).append(" p_").append(ident(v.name()));
                continue;
            }
            MethodBody.Param p = method.paramAtSlot(v.slot());
            if (p == null || Type.ofDescriptor(p.descriptor()) != v.type()) {
                throw new Unsupported(region.loop().line(), "the variable " + v.name() + " read before it is set in the region");
            }
            scalarParams.add(v);
            params.add(new KernelParam.Scalar(new ArrayRef.Parameter(p.index(), p.name()), v.type()));
            decl.append(",\n\t.param .").append(paramType(v.type())).append(" p_").append(ident(v.name()));
        }
        Set<Expr.FieldValue> fieldValues = new LinkedHashSet<>();
        for (Expr e : Dataflow.expressions(all)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.FieldValue f) {
                    fieldValues.add(f);
                }
            });
        }
        for (Expr.FieldValue f : fieldValues) {
            params.add(new KernelParam.Scalar(f.field(), f.type()));
            decl.append(",\n\t.param .").append(paramType(f.type())).append(" p_f_").append(ident(f.field().name()));
        }

        List<Reduction> reductions = region.reductions();
        for (int k = 0; k < reductions.size(); k++) {
            for (KernelParam.ReductionSlot.Part part : KernelParam.ReductionSlot.Part.values()) {
                params.add(new KernelParam.ReductionSlot(k, reductions.get(k), part));
                decl.append(",\n\t.param .u64 p_red").append(k).append('_').append(part.name().toLowerCase());
            }
        }
        if (group != null) {
            params.add(new KernelParam.RowLanes(group));
            decl.append(",\n\t.param .u32 p_lanes_log");
        }

        if (region.scan() != null) {
            for (KernelParam.ScanSlot.Part part : KernelParam.ScanSlot.Part.values()) {
                params.add(new KernelParam.ScanSlot(part));
                decl.append(",\n\t.param .u64 p_scan_").append(part.name().toLowerCase());
            }
        }

        // parameters into registers
        errBase = w.reg(Type.I64);
        errCode = w.reg(Type.I32);
        errDetail = w.reg(Type.I64);
        w.ldParam("u64", errBase, "p_err");
        w.op("cvta.to.global.u64", errBase, errBase);
        for (ArrayRef a : arrays) {
            Reg base = w.reg(Type.I64);
            Reg len = w.reg(Type.I32);
            w.ldParam("u64", base, "p_" + ident(a.name()));
            w.op("cvta.to.global.u64", base, base);
            w.ldParam("u32", len, "p_" + ident(a.name()) + "_len");
            bases.put(a, base);
            lengths.put(a, len);
            if (a.dims() == 2) {
                mem.flatLayout(a);
            }
        }
        for (Var v : scalarParams) {
            w.ldParam(paramType(v.type()), var(v), "p_" + ident(v.name()));
        }
        for (Expr.FieldValue f : fieldValues) {
            Reg r = w.reg(f.type());
            w.ldParam(paramType(f.type()), r, "p_f_" + ident(f.field().name()));
            fields.put(f.field(), r);
        }

        String exit = "$L_exit";
        statements(region.devicePrologue());
        for (Reduction r : reductions) {
            // each thread accumulates from the identity; the host combines the result with the value before the loop
            w.comment("private accumulator of " + r);
            w.mov(var(r.var()), identity(r));
        }
        if (region.scan() != null) {
            scan(region.scan(), exit);
        } else {
            statement(region.loop());
        }
        w.label(exit);
        reduceAll(reductions);
        w.ret();
        for (Runnable r : stubWriters) {
            r.run();
        }
        if (group != null) {
            // a lane of a row group that fails records the error and rejoins its group, whose shuffles need it
            RowLanes.raise(w, errBase, errCode, errDetail);
        }
        w.label("$L_raise");
        Reg old = w.reg(Type.I32);
        Reg lost = w.reg(Type.PRED);
        w.atomCas(old, errBase, 0, errCode);
        w.setp("ne", "s32", lost, old, 0);
        w.braIf(lost, true, exit);
        w.stGlobal("b64", errBase, 8, errDetail);
        if (reductions.isEmpty()) {
            w.ret();
        } else {
            // every thread of the block must reach the reductions' barriers
            w.bra(exit);
        }

        String where = (method.sourceFile() != null ? method.sourceFile() : method.displayName()) + ":" + region.loop().line();
        String ptx = "//\n// acc4j kernel for " + method.owner().replace('/', '.') + "." + method.name()
                + ", region " + region.ordinal() + " (loop at " + where + ")\n// " + region.why() + "\n//\n"
                + ".version " + ptxVersion(sm) + "\n.target sm_" + sm + "\n.address_size 64\n\n"
                + org.acc4j.templates.MathLibrary.moduleText(mathUsed)
                + org.acc4j.templates.Reductions.moduleText(reductionRoutines(reductions))
                + (region.scan() == null ? "" : org.acc4j.templates.Scans.moduleText(List.of(region.scan().routine())))
                + ".visible .entry " + entry + "(\n" + decl + "\n)\n{\n" + w.body() + "}\n";
        return new Result(entry, ptx, params, List.copyOf(sites));
    }

    /** A PTX ISA version that knows the target: 7.8 up to sm_90 (CUDA 11.8 drivers and later), 8.7 beyond. */
    static String ptxVersion(int sm) {
        return sm > 90 ? "8.7" : "7.8";
    }

    private static String paramType(Type t) {
        return switch (t) {
            case I32 -> "s32";
            case I64 -> "s64";
            case F32 -> "f32";
            case F64 -> "f64";
            case PRED -> "u32";
        };
    }

    /**
     * A user's name as a PTX identifier. Names that would collide with the kernel's own parameters ({@code p_err},
     * {@code p_f_*}, {@code p_red*}, an array's {@code *_len}) get a {@code u_} prefix.
     */
    static String ident(String name) {
        String id = name.replaceAll("[^A-Za-z0-9_]", "_");
        if (id.equals("err") || id.startsWith("f_") || id.startsWith("red") || id.endsWith("_len")
                || id.startsWith("u_")) {
            return "u_" + id;
        }
        return id;
    }

    private static List<org.acc4j.templates.Reductions.Routine> reductionRoutines(List<Reduction> reductions) {
        List<org.acc4j.templates.Reductions.Routine> out = new ArrayList<>();
        for (Reduction r : reductions) {
            out.add(r.routine());
        }
        return out;
    }

    /** The operator's identity as a PTX immediate of the variable's type. */
    private static String identity(Reduction r) {
        long bits = r.identityBits();
        return switch (r.type()) {
            case I32 -> Integer.toString((int) bits);
            case I64 -> Long.toString(bits);
            case F32 -> String.format("0f%08X", (int) bits);
            case F64 -> String.format("0d%016X", bits);
            case PRED -> throw new IllegalStateException("predicate");
        };
    }

    /** Every thread hands its accumulator to the template, which combines the grid's values on the device. */
    private void reduceAll(List<Reduction> reductions) {
        for (int k = 0; k < reductions.size(); k++) {
            Reduction r = reductions.get(k);
            var routine = r.routine();
            String ty = r.type().ptx();
            String p = "p_red" + k + "_";
            w.comment("combine " + r + " over the grid");
            w.block("{\n\t.reg .b64 %ra<4>;\n"
                    + "\tld.param.u64 %ra1, [" + p + "partials];\n\tcvta.to.global.u64 %ra1, %ra1;\n"
                    + "\tld.param.u64 %ra2, [" + p + "counter];\n\tcvta.to.global.u64 %ra2, %ra2;\n"
                    + "\tld.param.u64 %ra3, [" + p + "result];\n\tcvta.to.global.u64 %ra3, %ra3;\n"
                    + "\t.param ." + ty + " v;\n\t.param .u64 pp;\n\t.param .u64 pc;\n\t.param .u64 pr;\n"
                    + "\tst.param." + ty + " [v], " + var(r.var()) + ";\n"
                    + "\tst.param.u64 [pp], %ra1;\n\tst.param.u64 [pc], %ra2;\n\tst.param.u64 [pr], %ra3;\n"
                    + "\tcall.uni " + routine.symbol() + ", (v, pp, pc, pr);\n\t}");
        }
    }

    /**
     * The loop as a call of the scan template: Java's bounds checks first (at the first and the last index, in the
     * order of the iteration's two accesses, naming the index Java's loop would fail at), then every thread of the
     * block calls the routine with the elements' addresses, the count, the start value and the scan's state.
     */
    private void scan(org.acc4j.compiler.ir.Scan scan, String exit) {
        Stmt.For f = region.loop();
        currentLine = f.line();
        w.comment(where(f.line()) + scan);
        Reg lo = expr(f.lower());
        Reg ub = expr(f.bound());
        Reg none = w.reg(Type.PRED);
        w.setp("ge", "s32", none, lo, ub);
        w.braIf(none, true, exit);
        int bytes = scan.var().type().bytes();
        ArrayRef in = scan.input().array();
        ArrayRef out = scan.output().array();
        // the iteration's accesses in Java's order, each with whether it is checked here
        List<ArrayRef> order = scan.inclusive() ? List.of(in, out) : List.of(out, in);
        List<Boolean> checked = scan.inclusive()
                ? List.of(!unchecked.contains(scan.input().access()), !unchecked.contains(scan.output().access()))
                : List.of(!unchecked.contains(scan.output().access()), !unchecked.contains(scan.input().access()));
        // each access's own line, for the exception's place
        List<Integer> lines = scan.inclusive() ? List.of(scan.line(), scan.output().line())
                : List.of(scan.output().line(), scan.line());
        for (int k = 0; k < 2; k++) {
            mem.address(order.get(k), lo, lines.get(k), bytes, checked.get(k));
        }
        if (checked.contains(true)) {
            // the first index past an array's end, if the loop reaches it: there the first access in order fails
            Reg first = null;
            for (int k = 0; k < 2; k++) {
                if (checked.get(k)) {
                    Reg len = lengths.get(order.get(k));
                    if (first == null) {
                        first = len;
                    } else {
                        Reg m = w.reg(Type.I32);
                        w.op("min.s32", m, first, len);
                        first = m;
                    }
                }
            }
            Reg fits = w.reg(Type.PRED);
            w.setp("le", "s32", fits, ub, first);
            String ok = "$L_scan_in_bounds";
            w.braIf(fits, true, ok);
            for (int k = 0; k < 2; k++) {
                if (checked.get(k)) {
                    mem.address(order.get(k), first, lines.get(k), bytes, true);
                }
            }
            w.label(ok);
        }
        Reg inAddr = mem.elementAddress(bases.get(in), lo, bytes);
        Reg outAddr = mem.elementAddress(bases.get(out), lo, bytes);
        Reg lo64 = w.reg(Type.I64);
        Reg n = w.reg(Type.I64);
        w.op("cvt.s64.s32", lo64, lo);
        w.op("cvt.s64.s32", n, ub);
        w.op("sub.s64", n, n, lo64);
        String ty = scan.var().type().ptx();
        StringBuilder call = new StringBuilder("{\n\t.reg .b64 %sa<5>;\n");
        String[] parts = {"ticket", "flags", "aggregates", "inclusive"};
        for (int k = 0; k < 4; k++) {
            call.append("\tld.param.u64 %sa").append(k + 1).append(", [p_scan_").append(parts[k]).append("];\n")
                    .append("\tcvta.to.global.u64 %sa").append(k + 1).append(", %sa").append(k + 1).append(";\n");
        }
        call.append("\t.param .u64 si;\n\t.param .u64 so;\n\t.param .s64 sn;\n\t.param .").append(ty)
                .append(" ss;\n\t.param .u64 st;\n\t.param .u64 sf;\n\t.param .u64 sg;\n\t.param .u64 sc;\n")
                .append("\tst.param.u64 [si], ").append(inAddr).append(";\n")
                .append("\tst.param.u64 [so], ").append(outAddr).append(";\n")
                .append("\tst.param.s64 [sn], ").append(n).append(";\n")
                .append("\tst.param.").append(ty).append(" [ss], ").append(var(scan.var())).append(";\n")
                .append("\tst.param.u64 [st], %sa1;\n\tst.param.u64 [sf], %sa2;\n")
                .append("\tst.param.u64 [sg], %sa3;\n\tst.param.u64 [sc], %sa4;\n")
                .append("\tcall.uni ").append(scan.routine().symbol()).append(", (si, so, sn, ss, st, sf, sg, sc);\n\t}");
        w.block(call.toString());
    }

    Reg var(Var v) {
        return vars.computeIfAbsent(v, k -> w.reg(k.type()));
    }

    // ------------------------------------------------------------------ statements

    Reg expr(Expr e) {
        return exprs.expr(e);
    }

    Reg predicate(Expr cond) {
        return exprs.expr(cond);
    }

    private Reg constant(Type t, long value) {
        return exprs.constant(t, value);
    }

    void statements(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            statement(s);
        }
    }

    private void statement(Stmt s) {
        currentLine = s.line();
        if (!(s instanceof Stmt.For) && !(s instanceof Stmt.If) && !(s instanceof Stmt.While)) {
            w.comment(where(s.line()) + IrPrinter.print(List.of(s)).strip());
        }
        s.accept(lowering);
    }

    /** An atomic operation: its operands in Java's order, the index checked in the kernel, then {@link Atomics}. */
    void atomic(Stmt.Atomic at) {
        Reg index = expr(at.index());
        List<Reg> operands = new ArrayList<>();
        for (Expr e : at.operands()) {
            operands.add(expr(e));
        }
        Elem elem = at.array().elem();
        Reg addr = at.row() == null ? mem.address(at.array(), index, at.line(), elem.bytes(), true)
                : mem.address2(at.array(), at.row(), index, at.line(), true);
        Atomics.emit(w, at.op(), at.array().element(), elem, addr, operands, at.result() != null ? var(at.result()) : null);
        if (at.result() != null) {
            mem.forget(at.result());
        }
    }

    String where(int line) {
        return line > 0 ? (method.sourceFile() != null ? method.sourceFile() : "line") + ":" + line + ": " : "";
    }

    /** The end labels of the {@link Stmt.While} loops being emitted, innermost last: where a break goes. */
    final List<String> breakTargets = new ArrayList<>();

    /** A loop that is not counted, run by one thread as Java runs it: the test before each iteration. */
    void whileLoop(Stmt.While wl) {
        w.comment(where(wl.line()) + "while " + wl.cond() + " (sequential in each thread)");
        String head = w.newLabel("while");
        String end = w.newLabel("while_end");
        mem.label(head);
        if (!wl.endless()) {
            Reg p = predicate(wl.cond());
            w.braIf(p, false, end);
        }
        breakTargets.add(end);
        statements(wl.body());
        breakTargets.remove(breakTargets.size() - 1);
        w.bra(head);
        mem.label(end);
    }

    /** A loop run by one thread, exactly as Java runs it: the bound is re-evaluated before each iteration. */
    void sequentialLoop(Stmt.For f) {
        w.comment(where(f.line()) + "for " + f.index() + " (sequential in each thread)");
        Reg index = var(f.index());
        w.mov(index, expr(f.lower()));
        mem.forget(f.index());
        String head = w.newLabel("seq");
        String end = w.newLabel("seq_end");
        Set<Var> varying = new HashSet<>();
        varying.add(f.index());
        List<String> hoisted = mem.hoistRows(f.body(), varying);
        mem.label(head);
        Reg p = predicate(new Expr.Compare(f.cond(), new Expr.Local(f.index()), f.bound(), false));
        w.braIf(p, false, end);
        statements(f.body());
        Reg step = constant(f.index().type(), f.step());
        w.op("add." + f.index().type().ptx(), index, index, step);
        mem.forget(f.index());
        w.bra(head);
        mem.label(end);
        mem.hoistedRows.keySet().removeAll(hoisted);
    }

    /**
     * One parallel level of the mapping: the thread starts at {@code blockIdx[g] * blockDim[b] + threadIdx[b]} and
     * strides by {@code gridDim[g] * blockDim[b]} over the level's 64-bit trip count (the product of the trip
     * counts of collapsed loops, whose indices are recovered by division).
     */
    void parallelLevel(Mapping.Level level, String end) {
        if (group != null && level.outer() == group.rows()) {
            rowGroupLevel(level, end);
            return;
        }
        if (new PointNest(this, w).emit(level, end)) {
            return;
        }
        Stmt.For outer = level.outer();
        w.comment(where(outer.line()) + "for " + level.loops().stream().map(f -> f.index().name())
                .collect(java.util.stream.Collectors.joining(", ")) + ": " + level.why() + "; from "
                + level.startExpr() + " by " + level.strideExpr());
        List<Stmt.For> loops = level.loops();
        Reg[] lo = new Reg[loops.size()];
        Reg[] trips = new Reg[loops.size()];
        Reg total = null;
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For f = loops.get(q);
            boolean narrow = f.index().type() == Type.I32;
            lo[q] = Trips.wide(w, expr(f.lower()), narrow);
            trips[q] = Trips.count(w, f, lo[q], Trips.wide(w, expr(f.bound()), narrow));
            if (total == null) {
                total = trips[q];
            } else {
                Reg t = w.reg(Type.I64);
                w.op("mul.lo.s64", t, total, trips[q]);
                total = t;
            }
        }
        Reg t = w.reg(Type.I64);
        Reg stride = w.reg(Type.I64);
        int g = level.gridAxis();
        int b = level.blockAxis();
        String gx = g == Mapping.NONE ? null : Mapping.AXES[g];
        String bx = b == Mapping.NONE ? null : Mapping.AXES[b];
        if (gx != null && bx != null) {
            Reg ctaid = special("%ctaid." + gx);
            Reg ntid = special("%ntid." + bx);
            Reg tid = special("%tid." + bx);
            Reg nctaid = special("%nctaid." + gx);
            Reg tid64 = w.reg(Type.I64);
            w.op("mul.wide.u32", t, ctaid, ntid);
            w.op("cvt.u64.u32", tid64, tid);
            w.op("add.s64", t, t, tid64);
            w.op("mul.wide.u32", stride, nctaid, ntid);
        } else if (gx != null || bx != null) {
            String axis = gx != null ? "%ctaid." + gx : "%tid." + bx;
            String count = gx != null ? "%nctaid." + gx : "%ntid." + bx;
            w.op("cvt.u64.u32", t, special(axis));
            w.op("cvt.u64.u32", stride, special(count));
        } else {
            w.mov(t, 0);
            w.mov(stride, 1);
        }
        String head = w.newLabel("par");
        Set<Var> varying = new HashSet<>();
        loops.forEach(f -> varying.add(f.index()));
        List<String> hoisted = mem.hoistRows(level.inner().body(), varying);
        if (oncePerThread()) {
            // when the grid covers the level (its stride at least its trip count) each thread runs at most one
            // iteration: that path has no loop back, the strided loop below is the other
            Reg covers = w.reg(Type.PRED);
            String strided = w.newLabel("par_strided");
            w.setp("ge", "s64", covers, stride, total);
            w.braIf(covers, false, strided);
            Reg none = w.reg(Type.PRED);
            w.setp("ge", "s64", none, t, total);
            w.braIf(none, true, end);
            iteration(level, lo, trips, t);
            w.bra(end);
            mem.label(strided);
        }
        mem.label(head);
        Reg done = w.reg(Type.PRED);
        w.setp("ge", "s64", done, t, total);
        w.braIf(done, true, end);
        iteration(level, lo, trips, t);
        w.op("add.s64", t, t, stride);
        w.bra(head);
        // the caller places the end label; the preloaded rows hold up to it and are not used after
        mem.hoistedRows.keySet().removeAll(hoisted);
    }

    /**
     * Whether each parallel level gets a path without its loop for a thread that runs at most one of its iterations:
     * in the variant without checks (its bodies raise nothing, so a copy of them adds no error site), for a mapping
     * of at most two levels (the bodies are emitted once per combination of paths: at most four times), or of three
     * for a marched stencil whose shape asks for it ({@link org.acc4j.compiler.pass.Marching#MAPPING_ONCE}: eight) or
     * a 3D stencil kept at one point per thread ({@link org.acc4j.compiler.pass.PointBlock#MAPPING}).
     */
    boolean oncePerThread() {
        return ONCE_PER_THREAD && !unchecked.isEmpty() && region.scan() == null && region.mapping() != null
                && (region.mapping().levels().size() <= 2
                || org.acc4j.compiler.pass.Marching.MAPPING_ONCE.equals(region.mapping().name())
                || points(region.mapping()));
    }

    /** Whether {@code m} is a 3D stencil's kept at one point per thread. */
    static boolean points(Mapping m) {
        return org.acc4j.compiler.pass.PointBlock.MAPPING.equals(m.name())
                || org.acc4j.compiler.pass.PointBlock.MAPPING_ALIGNED.equals(m.name());
    }

    /** Whether levels get their one-iteration path ({@link #oncePerThread}). */
    static final boolean ONCE_PER_THREAD = true;

    /** One iteration of a level at linear position {@code t}: the loops' indices recovered from it, then the body. */
    private void iteration(Mapping.Level level, Reg[] lo, Reg[] trips, Reg t) {
        List<Stmt.For> loops = level.loops();
        Reg rest = t;
        for (int q = loops.size() - 1; q >= 0; q--) {
            Stmt.For f = loops.get(q);
            Reg tq;
            if (q == 0) {
                tq = rest;
            } else {
                tq = w.reg(Type.I64);
                Reg r = w.reg(Type.I64);
                w.op("rem.u64", tq, rest, trips[q]);
                w.op("div.u64", r, rest, trips[q]);
                rest = r;
            }
            Reg i64 = w.reg(Type.I64);
            if (f.step() == 1) {
                w.op("add.s64", i64, lo[q], tq);
            } else {
                w.op("mad.lo.s64", i64, tq, f.step(), lo[q]);
            }
            Reg index = var(f.index());
            if (f.index().type() == Type.I32) {
                w.op("cvt.u32.u64", index, i64);
            } else {
                w.mov(index, i64);
            }
            mem.forget(f.index());
        }
        statements(level.inner().body());
    }

    /**
     * The row loop of a {@link RowGroup}: the level's threads in groups of {@code 2^p_lanes_log} consecutive lanes,
     * one row per group at a time; the statements before the inner loop run in every lane, the inner loop's
     * iterations are dealt out to the lanes ({@link #laneLoop}), and the group's first lane runs the rest.
     */
    private void rowGroupLevel(Mapping.Level level, String end) {
        Stmt.For f = level.outer();
        w.comment(where(f.line()) + "for " + f.index().name() + ": a group of lanes per row; " + level.why());
        Reg lo = Trips.wide(w, expr(f.lower()), true);
        Reg trips = Trips.count(w, f, lo, Trips.wide(w, expr(f.bound()), true));
        RowLanes lanes = RowLanes.start(w, special("%ctaid.x"), special("%ntid.x"), special("%tid.x"),
                special("%nctaid.x"), special("%laneid"));
        String head = w.newLabel("rows");
        mem.label(head);
        Reg done = w.reg(Type.PRED);
        w.setp("ge", "s64", done, lanes.row(), trips);
        w.braIf(done, true, end);
        Reg i64 = w.reg(Type.I64);
        w.op("add.s64", i64, lo, lanes.row());
        w.op("cvt.u32.u64", var(f.index()), i64);
        mem.forget(f.index());
        List<Stmt> body = f.body();
        int at = body.indexOf(group.inner());
        statements(body.subList(0, at));
        laneLoop(group.inner(), lanes);
        String skip = w.newLabel("not_first_lane");
        w.braIf(lanes.notFirst(), true, skip);
        statements(body.subList(at + 1, body.size()));
        mem.label(skip);
        lanes.next(w);
        w.bra(head);
    }

    /** A row's elements dealt out to the group's lanes, each adding its share, then the shares added across the group. */
    private void laneLoop(Stmt.For inner, RowLanes lanes) {
        w.comment(where(inner.line()) + "for " + inner.index() + ": the group's lanes take the row's elements in turn");
        Var sum = group.sum();
        Reg s = var(sum);
        Reg identity = constant(sum.type(), group.identityBits());
        w.op("selp." + sum.type().bits(), s, identity, s, lanes.notFirst());
        mem.forget(sum);
        Reg k64 = w.reg(Type.I64);
        w.op("add.s64", k64, Trips.wide(w, expr(inner.lower()), true), lanes.lane64());
        Reg hi = Trips.wide(w, expr(inner.bound()), true);
        String head = w.newLabel("lane_loop");
        mem.label(head);
        Reg done = w.reg(Type.PRED);
        w.setp("ge", "s64", done, k64, hi);
        w.braIf(done, true, RowLanes.REJOIN);
        w.op("cvt.u32.u64", var(inner.index()), k64);
        mem.forget(inner.index());
        raiseTarget = RowLanes.RAISE;
        statements(inner.body());
        raiseTarget = "$L_raise";
        w.op("add.s64", k64, k64, lanes.lanes64());
        w.bra(head);
        mem.label(RowLanes.REJOIN);
        lanes.addAcross(w, s);
        mem.forget(sum);
    }

    Reg special(String name) {
        Reg r = w.reg(Type.I32);
        w.mov(r, name);
        return r;
    }

    int site(ErrorSite.Kind kind, String array, int line) {
        sites.add(new ErrorSite(kind, array, line));
        return sites.size();
    }
}
