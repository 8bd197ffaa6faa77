package org.acc4j.compiler.cudac;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.ErrorSite;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Dataflow;

/**
 * Renders a compiled kernel as readable CUDA C: one {@code extern "C" __global__} function with the PTX kernel's
 * name and parameters, in the same order, so that it could be launched in its place.
 *
 * <p>What it shows: the mapping's index arithmetic as the OpenUH paper's Figures 6 and 7 write it, per parallel
 * level (each thread starts at {@code blockIdx * blockDim + threadIdx} on the level's axes and strides by
 * {@code gridDim * blockDim} over the level's 64-bit trip count; collapsed loops recover their indices by division
 * and remainder); the loop body as C statements, each under a comment naming its Java source line (with the
 * line's text when the source was found); the bounds and zero-divisor checks the PTX makes, in its order, each
 * recording the first failure in the error record and stopping the thread before it touches memory; and the
 * reductions' per-thread accumulators and their combine over the grid.
 *
 * <p>Where C's rules differ from Java's, a small helper at the top of the file keeps Java's ({@code acc_div},
 * {@code acc_shl}, {@code acc_d2i}, {@code acc_lt_or_nan}, {@code acc_min} ...). Two things are written as C
 * would and documented in the file's header: {@code int} and {@code long} {@code + - *} (C calls overflow
 * undefined, Java wraps; nvcc emits the wrapping instructions), and floating-point {@code a * b + c}, which nvcc
 * fuses unless compiled with {@code -fmad=false} as the header says. Math.exp, log, pow, sin, cos, tan and tanh
 * call CUDA's math library, within its documented error, not the bits of {@code ptx-templates}' routines.
 */
public final class CudaCRenderer {
    /** One kernel as CUDA C: its name, the translation unit, and its error sites in code order (code = index + 1). */
    public record Rendering(String entry, String source, List<ErrorSite> sites) {
        public Rendering {
            sites = List.copyOf(sites);
        }
    }

    /** The nvcc options a rendering is meant for: Java rounds every float operation, never fusing a * b + c. */
    public static final String NVCC_OPTIONS = "-arch=sm_90 -fmad=false";

    private static final Set<String> RESERVED = Set.of(
            // C and C++ keywords that are not Java's
            "auto", "bool", "delete", "extern", "friend", "inline", "mutable", "namespace", "operator", "register",
            "signed", "sizeof", "struct", "template", "typedef", "typename", "union", "unsigned", "using", "virtual",
            "and", "or", "not", "xor", "bitand", "bitor", "compl", "explicit", "export", "restrict", "asm", "typeid",
            "constexpr", "decltype", "nullptr", "alignas", "alignof", "thread_local", "noexcept", "static_assert",
            "char16_t", "char32_t", "wchar_t", "not_eq", "and_eq", "or_eq", "xor_eq", "dynamic_cast", "static_cast",
            "reinterpret_cast", "const_cast", "concept", "requires", "co_await", "co_yield", "co_return", "main",
            // CUDA's built-in variables and the math functions the rendering calls
            "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "min", "max", "abs", "fabs", "fabsf", "sqrt",
            "exp", "log", "pow", "sin", "cos", "tan", "tanh", "floor", "ceil", "rint", "fma", "floorf", "ceilf",
            "rintf", "fmaf", "NULL", "INFINITY", "NAN");

    private final Expressions exprs = new Expressions(this);
    private final MethodBody method;
    private final KernelPlan kernel;
    private final SourceText source;
    private final StringBuilder out = new StringBuilder(4096);
    final Set<CudaHelpers> helpers = EnumSet.noneOf(CudaHelpers.class);
    private final List<ErrorSite> sites = new ArrayList<>();
    private final Set<String> taken = new HashSet<>();
    final Map<Var, String> varNames = new LinkedHashMap<>();
    final Map<ArrayRef, String> arrayNames = new HashMap<>();
    final Map<ArrayRef, String> lengthNames = new HashMap<>();
    final Map<ArrayRef.Field, String> fieldNames = new HashMap<>();
    private final Map<String, Type> declared = new LinkedHashMap<>();
    final Set<String> mathCalls = new LinkedHashSet<>();
    private String err;
    private String fail;
    private int depth;
    private int lastMark = -1;

    private CudaCRenderer(MethodBody method, KernelPlan kernel, SourceText source) {
        this.method = method;
        this.kernel = kernel;
        this.source = source == null ? SourceText.NONE : source;
    }

    /** Every kernel of {@code m}, in order. */
    public static List<Rendering> render(CompiledMethod m, SourceText source) {
        List<Rendering> out = new ArrayList<>();
        for (KernelPlan k : m.kernels()) {
            out.add(render(m.body(), k, source));
        }
        return out;
    }

    /** One kernel of {@code method}. */
    public static Rendering render(MethodBody method, KernelPlan kernel, SourceText source) {
        return new CudaCRenderer(method, kernel, source).run();
    }

    static String cType(Type t) {
        return switch (t) {
            case I32 -> "int";
            case I64 -> "long long";
            case F32 -> "float";
            case F64 -> "double";
            case PRED -> "bool";
        };
    }

    /**
     * The C type of an array's elements: C's integer promotion of a load widens {@code signed char} and {@code short}
     * with their sign and {@code unsigned char} ({@code boolean}) and {@code unsigned short} ({@code char}) with zeros,
     * as Java's loads do.
     */
    static String cType(Elem e) {
        return switch (e) {
            case BOOLEAN -> "unsigned char";
            case BYTE -> "signed char";
            case SHORT -> "short";
            case CHAR -> "unsigned short";
            default -> cType(e.type());
        };
    }

    // ------------------------------------------------------------------ the translation unit

    private Rendering run() {
        var region = kernel.region();
        if (region.scan() != null) {
            // the scan is the template's PTX, which has no CUDA C form
            return new Rendering(kernel.entry(), "// acc4j kernel " + kernel.entry() + ": " + region.scan()
                    + ", the one-pass device scan of ptx-templates (org.acc4j.templates.Scans), written in PTX only:"
                    + " see the kernel's .ptx dump\n", kernel.sites());
        }
        List<Stmt> all = new ArrayList<>(region.devicePrologue());
        all.add(region.loop());
        helpers.add(CudaHelpers.ERROR);
        fail = region.reductions().isEmpty() ? "return;" : "goto acc_exit;";

        // names: the Java names where C allows them, made unique
        err = unique("err");
        Set<Var> liveIn = new LinkedHashSet<>();
        Dataflow.liveIn(all, liveIn);
        List<Var> scalarVars = new ArrayList<>(liveIn);
        for (KernelParam p : kernel.params()) {
            if (p instanceof KernelParam.ArrayData d) {
                arrayNames.put(d.array(), name(d.array().name()));
            }
        }
        for (Var v : scalarVars) {
            varName(v);
        }
        Set<Var> locals = new LinkedHashSet<>();
        Dataflow.assigned(all, locals);
        for (Expr e : Dataflow.expressions(all)) {
            Dataflow.forEach(e, x -> {
                if (x instanceof Expr.Local l) {
                    locals.add(l.var());
                }
            });
        }
        for (Reduction r : region.reductions()) {
            locals.add(r.var());
        }
        for (Var v : locals) {
            varName(v);
        }
        // the signature, from the plan's parameters (the runtime binds them by position)
        List<String> params = new ArrayList<>();
        int scalar = 0;
        Map<Integer, String[]> reductionNames = new HashMap<>();
        for (KernelParam p : kernel.params()) {
            if (p instanceof KernelParam.ErrorRecord) {
                params.add("acc_error* " + err);
            } else if (p instanceof KernelParam.ArrayData d) {
                ArrayRef a = d.array();
                String type = a.dims() == 1 ? cType(a.elem()) : "acc_row_" + a.elem().javaName();
                if (a.dims() == 2) {
                    helpers.add(CudaHelpers.rowOf(a.elem()));
                }
                params.add((d.written() && a.dims() == 1 ? "" : "const ") + type + "* " + arrayNames.get(a)
                        + "  /* " + a.javaType() + " " + a.name() + (d.written() ? ", written" : ", read only") + " */");
            } else if (p instanceof KernelParam.ArrayLength l) {
                String n = unique(arrayNames.get(l.array()) + "_len");
                lengthNames.put(l.array(), n);
                params.add("int " + n + (l.array().dims() == 2 ? "  /* rows */" : ""));
            } else if (p instanceof KernelParam.RowBlock b) {
                String n = arrayNames.get(b.array());
                params.add(b.part() == KernelParam.RowBlock.Part.START
                        ? "unsigned long long " + n + "_block  /* the rows' block when they are one, else 0; this"
                        + " rendering reads every row from the table */"
                        : "int " + n + "_pitch  /* the row length when the rows are one block, else -1 */");
            } else if (p instanceof KernelParam.HostValue h) {
                Var v = scalarVars.get(scalar++);
                params.add(cType(h.var().type()) + " " + varNames.get(v) + "  /* computed on the host */");
            } else if (p instanceof KernelParam.Scalar s && s.source() instanceof ArrayRef.Parameter) {
                Var v = scalarVars.get(scalar++);
                params.add(cType(s.type()) + " " + varNames.get(v));
            } else if (p instanceof KernelParam.Scalar s) {
                ArrayRef.Field f = (ArrayRef.Field) s.source();
                String n = name(f.name());
                fieldNames.put(f, n);
                params.add(cType(s.type()) + " " + n + "  /* " + (f.isStatic() ? "static field " : "field this.")
                        + f.name() + " */");
            } else if (p instanceof KernelParam.RowLanes g) {
                params.add("unsigned int lanes_log  /* the PTX runs a group of 2^lanes_log lanes per row of "
                        + (g.group().offsets() == null ? "the matrix" : g.group().offsets().name())
                        + "; this rendering shows one thread per row */");
            } else if (p instanceof KernelParam.ReductionSlot r) {
                String base = varNames.get(r.reduction().var());
                String n = unique(base + "_" + r.part().name().toLowerCase());
                reductionNames.computeIfAbsent(r.index(), k -> new String[3])[r.part().ordinal()] = n;
                String t = cType(r.reduction().type());
                params.add(switch (r.part()) {
                    case RESULT -> t + "* " + n + "  /* " + r.reduction() + ": the grid's value */";
                    case COUNTER -> "unsigned int* " + n + "  /* blocks arrived (0 between launches) */";
                    case PARTIALS -> t + "* " + n + "  /* one value per block */";
                });
            }
        }
        if (scalar != scalarVars.size()) {
            throw new IllegalStateException(kernel.entry() + ": " + scalarVars.size() + " scalars live into the region but "
                    + scalar + " scalar parameters");
        }
        Set<Var> paramVars = new HashSet<>(scalarVars);

        // the body
        depth = 1;
        StringBuilder declarations = new StringBuilder();
        for (Var v : locals) {
            if (!paramVars.contains(v)) {
                declared.put(varNames.get(v), v.type());
            }
        }
        statements(region.devicePrologue());
        for (Reduction r : region.reductions()) {
            line("/* " + where(r.line()) + r + ": this thread's private accumulator starts at the identity; the host");
            line("   combines the grid's value with " + r.var().name() + "'s value before the loop */");
            line(varNames.get(r.var()) + " = " + Expressions.identity(r) + ";");
        }
        statement(region.loop());
        if (!region.reductions().isEmpty()) {
            out.append("acc_exit:\n");
            List<Reduction> reds = region.reductions();
            for (int k = 0; k < reds.size(); k++) {
                Reduction r = reds.get(k);
                String[] n = reductionNames.get(k);
                line("/* " + where(r.line()) + r + ": combined over the grid; every thread of the block gets here, whether it");
                line("   ran iterations or stopped at an error */");
                line(r.routine().symbol() + "(" + varNames.get(r.var()) + ", " + n[KernelParam.ReductionSlot.Part.PARTIALS.ordinal()]
                        + ", " + n[KernelParam.ReductionSlot.Part.COUNTER.ordinal()] + ", "
                        + n[KernelParam.ReductionSlot.Part.RESULT.ordinal()] + ");");
                if (r.type().isFloat() && (r.op() == Reduction.Op.MAX || r.op() == Reduction.Op.MIN)) {
                    helpers.add(CudaHelpers.MIN_MAX);
                }
            }
        }
        Map<Type, List<String>> byType = new LinkedHashMap<>();
        for (Map.Entry<String, Type> e : declared.entrySet()) {
            byType.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
        }
        for (Map.Entry<Type, List<String>> e : byType.entrySet()) {
            declarations.append("    ").append(cType(e.getKey())).append(' ').append(String.join(", ", e.getValue()))
                    .append(";\n");
        }

        StringBuilder unit = new StringBuilder();
        header(unit, region);
        unit.append("#include <cuda_runtime.h>\n\n");
        for (CudaHelpers h : helpers) {
            unit.append(h.text).append('\n');
        }
        Set<String> routines = new LinkedHashSet<>();
        for (Reduction r : region.reductions()) {
            if (routines.add(r.routine().symbol())) {
                unit.append(CudaHelpers.reduction(r)).append('\n');
            }
        }
        unit.append("extern \"C\" __global__ void ").append(kernel.entry()).append("(\n");
        for (int k = 0; k < params.size(); k++) {
            String p = params.get(k);
            int comment = p.indexOf("  /*");
            String decl = comment < 0 ? p : p.substring(0, comment);
            String note = comment < 0 ? "" : p.substring(comment);
            unit.append("    ").append(decl).append(k + 1 < params.size() ? "," : "").append(note).append('\n');
        }
        unit.append(")\n{\n").append(declarations).append(declarations.length() > 0 ? "\n" : "").append(out).append("}\n");
        return new Rendering(kernel.entry(), unit.toString(), sites);
    }

    private void header(StringBuilder unit, org.acc4j.compiler.ir.Region region) {
        Mapping m = region.mapping();
        unit.append("// acc4j: kernel ").append(kernel.entry()).append(" as CUDA C, for reading\n");
        unit.append("// ").append(method.owner().replace('/', '.')).append('.').append(method.name()).append(", region ")
                .append(region.ordinal()).append(" (loop at ").append(fileName()).append(':').append(region.loop().line())
                .append(")\n");
        unit.append("// ").append(region.why()).append('\n');
        if (m != null) {
            unit.append("// mapping ").append(m.name()).append(": block (").append(m.block()[0]).append(", ")
                    .append(m.block()[1]).append(", ").append(m.block()[2]).append("), grid (");
            for (int axis = 0; axis < 3; axis++) {
                unit.append(axis > 0 ? ", " : "").append(gridText(m, m.grid().get(axis)));
            }
            unit.append(")\n");
        }
        unit.append("//\n");
        unit.append("// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error\n");
        unit.append("// record. Build: nvcc ").append(NVCC_OPTIONS).append(" -ptx ").append(kernel.entry()).append(".cu\n");
        unit.append("// (-fmad=false because Java rounds a * b and then + c; nvcc would fuse them into one fma).\n");
        unit.append("// int and long + - * are written as C's: Java wraps on overflow, C calls it undefined, and nvcc emits\n");
        unit.append("// the wrapping instructions.\n");
        if (!mathCalls.isEmpty()) {
            unit.append("// Math.").append(String.join(", Math.", mathCalls)).append(" call CUDA's math library: within its\n");
            unit.append("// documented error, not always the bits of ptx-templates' routines that the PTX calls.\n");
        }
        unit.append('\n');
    }

    private static String gridText(Mapping m, Mapping.GridDim d) {
        if (d instanceof Mapping.Fixed f) {
            return Integer.toString(f.blocks());
        }
        if (d instanceof Mapping.FromTrip t) {
            Mapping.Level level = m.levels().get(t.level());
            String loops = String.join("*", level.loops().stream().map(f -> f.index().name()).toList());
            return "ceil(trip(" + loops + ") / " + t.perBlock() + ")" + (t.max() == 0 ? " <= a full device"
                    : t.max() < Integer.MAX_VALUE ? " <= " + t.max() : "");
        }
        return "1";
    }

    private String fileName() {
        return method.sourceFile() != null ? method.sourceFile() : method.displayName();
    }

    private String where(int line) {
        return line > 0 ? fileName() + ":" + line + "  " : "";
    }

    // ------------------------------------------------------------------ names

    /** A Expressions.C identifier for {@code wanted}, unused so far. */
    private String name(String wanted) {
        String base = wanted.replaceAll("[^A-Za-z0-9_]", "_");
        if (base.isEmpty() || Character.isDigit(base.charAt(0)) || RESERVED.contains(base) || base.startsWith("acc_")
                || base.startsWith("__")) {
            base = "j_" + base;
        }
        return unique(base);
    }

    /** {@code base}, or {@code base_2}, {@code base_3} ... when taken (for names the renderer makes up). */
    private String unique(String base) {
        String n = base;
        for (int k = 2; !taken.add(n); k++) {
            n = base + "_" + k;
        }
        return n;
    }

    private String varName(Var v) {
        return varNames.computeIfAbsent(v, k -> name(k.name()));
    }


    // ------------------------------------------------------------------ statements

    private void line(String text) {
        out.append("    ".repeat(depth)).append(text).append('\n');
    }

    /** The comment that marks where a Java source line's code starts, with the line's text when known. */
    private void mark(int line, String what) {
        if (line == lastMark && what == null) {
            return;
        }
        lastMark = line;
        if (line <= 0) {
            if (what != null) {
                line("/* " + what + " */");
            }
            return;
        }
        String text = source.line(line);
        String comment = fileName() + ":" + line + (text != null && !text.isBlank() ? "  " + text.strip() : "");
        line("/* " + comment.replace("*/", "* /") + (what != null ? " -- " + what : "") + " */");
    }

    private void statements(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            statement(s);
        }
    }

    private void statement(Stmt s) {
        if (s instanceof Stmt.Assign a) {
            mark(s.line(), null);
            checks(a.value(), s.line());
            line(varNames.get(a.var()) + " = " + expr(a.value()).text() + ";");
        } else if (s instanceof Stmt.Store st) {
            mark(s.line(), null);
            checks(st.index(), s.line());
            checks(st.value(), s.line());
            String target;
            if (st.row() == null) {
                boundsCheck(st.array(), st.index(), s.line());
                target = arrayNames.get(st.array()) + "[" + expr(st.index()).text() + "]";
            } else {
                checks(st.row(), s.line());
                rowCheck(st.array(), st.row(), s.line());
                columnCheck(st.array(), st.row(), st.index(), s.line());
                target = arrayNames.get(st.array()) + "[" + expr(st.row()).text() + "].data[" + expr(st.index()).text() + "]";
            }
            // a store keeps the value's low bits (C's conversion to the narrow type), a boolean[] its lowest bit
            line(target + " = " + (st.array().elem() == Elem.BOOLEAN ? expr(st.value(), Expressions.Prec.AND).text() + " & 1"
                    : expr(st.value()).text()) + ";");
        } else if (s instanceof Stmt.Atomic at) {
            atomic(at);
        } else if (s instanceof Stmt.If i) {
            mark(s.line(), null);
            checks(i.cond(), s.line());
            line("if (" + expr(i.cond()).text() + ") {");
            block(i.then());
            if (!i.otherwise().isEmpty()) {
                line("} else {");
                block(i.otherwise());
            }
            line("}");
        } else if (s instanceof Stmt.For f) {
            Mapping.Level level = kernel.region().mapping() == null ? null : kernel.region().mapping().levelOf(f);
            if (level != null && level.outer() == f) {
                parallelLevel(level);
            } else {
                sequentialLoop(f);
            }
        } else if (s instanceof Stmt.While w) {
            whileLoop(w);
        } else if (s instanceof Stmt.Break) {
            mark(s.line(), null);
            line("break;");
        } else if (s instanceof Stmt.Return) {
            throw new IllegalStateException("a return inside a kernel's region");
        }
    }

    private void block(List<Stmt> body) {
        depth++;
        statements(body);
        depth--;
    }

    /** A loop that is not counted, as Java runs it: the test before each iteration, breaks as C's. */
    private void whileLoop(Stmt.While w) {
        mark(w.line(), "sequential in each thread");
        if (!hasChecks(w.cond())) {
            line("while (" + expr(w.cond()).text() + ") {");
            block(w.body());
            line("}");
            return;
        }
        line("for (;;) {");
        depth++;
        checks(w.cond(), w.line());
        line("if (!(" + expr(w.cond()).text() + ")) break;");
        statements(w.body());
        depth--;
        line("}");
    }

    /** A loop one thread runs, as Java runs it: the bound is evaluated before each iteration. */
    private void sequentialLoop(Stmt.For f) {
        mark(f.line(), "sequential in each thread");
        String i = varNames.get(f.index());
        String step = f.step() == 1 ? i + "++" : f.step() == -1 ? i + "--"
                : f.step() > 0 ? i + " += " + f.step() : i + " -= " + -f.step();
        checks(f.lower(), f.line());
        Expr test = new Expr.Compare(f.cond(), new Expr.Local(f.index()), f.bound(), false);
        if (!hasChecks(f.bound())) {
            line("for (" + i + " = " + expr(f.lower()).text() + "; " + expr(test).text() + "; " + step + ") {");
            block(f.body());
            line("}");
            return;
        }
        line(i + " = " + expr(f.lower()).text() + ";");
        line("for (;;) {");
        depth++;
        checks(f.bound(), f.line());
        line("if (!(" + expr(test).text() + ")) break;");
        statements(f.body());
        line(step + ";");
        depth--;
        line("}");
    }

    /**
     * One parallel level, as the seed's figures write it: each thread starts at {@code blockIdx * blockDim +
     * threadIdx} on the level's axes and strides by {@code gridDim * blockDim}, over the level's trip count in 64
     * bits (the product of the collapsed loops' trip counts, whose indices come back by division and remainder).
     */
    private void parallelLevel(Mapping.Level level) {
        List<Stmt.For> loops = level.loops();
        String names = String.join("", loops.stream().map(f -> varNames.get(f.index())).toList());
        Stmt.For outer = level.outer();
        mark(outer.line(), null);
        line("/* for " + String.join(", ", loops.stream().map(f -> f.index().name()).toList()) + ": " + level.why() + " */");
        String[] lo = new String[loops.size()];
        String[] trip = new String[loops.size()];
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For f = loops.get(q);
            String index = varNames.get(f.index());
            checks(f.lower(), f.line());
            checks(f.bound(), f.line());
            if (f.lower() instanceof Expr.Const) {
                lo[q] = expr(f.lower()).text();
            } else {
                lo[q] = unique("lo_" + index);
                declared.put(lo[q], Type.I64);
                line(lo[q] + " = " + expr(f.lower()).text() + ";");
            }
            trip[q] = unique("trip_" + index);
            declared.put(trip[q], Type.I64);
            CudaHelpers tripHelper = switch (f.cond()) {
                case LT -> CudaHelpers.TRIP_LT;
                case LE -> CudaHelpers.TRIP_LE;
                case GT -> CudaHelpers.TRIP_GT;
                case GE -> CudaHelpers.TRIP_GE;
                case NE -> CudaHelpers.TRIP_NE;
                default -> throw new IllegalStateException("a parallel loop with " + f.cond());
            };
            helpers.add(tripHelper);
            String fn = "acc_trip_" + f.cond().name().toLowerCase();
            long step = f.cond() == org.acc4j.compiler.ir.Cond.NE ? f.step() : Math.abs(f.step());
            line(trip[q] + " = " + fn + "(" + lo[q] + ", " + expr(f.bound()).text() + ", " + step + ");");
        }
        String total = trip[0];
        if (loops.size() > 1) {
            total = unique("trip_" + names);
            declared.put(total, Type.I64);
            line(total + " = " + String.join(" * ", trip) + ";  /* collapse(" + loops.size() + "): one level */");
        }
        String t = unique("t_" + names);
        declared.put(t, Type.I64);
        String g = level.gridAxis() == Mapping.NONE ? null : Mapping.AXES[level.gridAxis()];
        String b = level.blockAxis() == Mapping.NONE ? null : Mapping.AXES[level.blockAxis()];
        String start;
        String stride;
        if (g != null && b != null) {
            start = "(long long) blockIdx." + g + " * blockDim." + b + " + threadIdx." + b;
            stride = "(long long) gridDim." + g + " * blockDim." + b;
        } else if (g != null) {
            start = "blockIdx." + g;
            stride = "gridDim." + g;
        } else if (b != null) {
            start = "threadIdx." + b;
            stride = "blockDim." + b;
        } else {
            start = "0";
            stride = "1";
        }
        line("for (" + t + " = " + start + "; " + t + " < " + total + "; " + t + " += " + stride + ") {");
        depth++;
        for (int q = 0; q < loops.size(); q++) {
            Stmt.For f = loops.get(q);
            String tq = t;
            if (loops.size() > 1) {
                String below = String.join(" * ", java.util.Arrays.asList(trip).subList(q + 1, loops.size()));
                boolean product = q + 2 < loops.size();
                if (q == 0) {
                    tq = t + " / " + (product ? "(" + below + ")" : below);
                } else if (q + 1 < loops.size()) {
                    tq = t + " / " + (product ? "(" + below + ")" : below) + " % " + trip[q];
                } else {
                    tq = t + " % " + trip[q];
                }
            }
            long step = Math.abs(f.step());
            String scaled = step == 1 ? tq : (loops.size() > 1 ? "(" + tq + ")" : tq) + " * " + step;
            String value = f.step() > 0 && (lo[q].equals("0") || lo[q].equals("0LL")) ? scaled
                    : lo[q] + (f.step() > 0 ? " + " : " - ") + scaled;
            String index = varNames.get(f.index());
            boolean simple = value.matches("[A-Za-z_][A-Za-z0-9_]*");
            line(index + " = " + (f.index().type() == Type.I32 ? "(int) " + (simple ? value : "(" + value + ")") : value) + ";");
        }
        statements(level.inner().body());
        depth--;
        line("}");
    }

    // ------------------------------------------------------------------ checks, in the PTX's order

    private boolean hasChecks(Expr e) {
        return Exprs.any(e, x -> x instanceof Expr.Load || (x instanceof Expr.Length l && l.row() != null)
                || (x instanceof Expr.Binary b && !b.type().isFloat() && (b.op() == BinOp.DIV || b.op() == BinOp.REM)));
    }

    /** The checks of {@code e}, each where the PTX makes it: after its operands, before its own use. */
    /** An atomic operation as CUDA's atomic functions (a volatile access for a read or write). */
    private void atomic(Stmt.Atomic at) {
        mark(at.line(), null);
        if (at.row() != null) {
            checks(at.row(), at.line());
        }
        checks(at.index(), at.line());
        for (Expr e : at.operands()) {
            checks(e, at.line());
        }
        String element;
        if (at.row() == null) {
            boundsCheck(at.array(), at.index(), at.line());
            element = arrayNames.get(at.array()) + "[" + expr(at.index()).text() + "]";
        } else {
            rowCheck(at.array(), at.row(), at.line());
            columnCheck(at.array(), at.row(), at.index(), at.line());
            element = arrayNames.get(at.array()) + "[" + expr(at.row()).text() + "].data[" + expr(at.index()).text() + "]";
        }
        Type t = at.array().element();
        String p = "&" + element;
        List<String> ops = at.operands().stream().map(e -> expr(e).text()).toList();
        String v = ops.isEmpty() ? null : ops.get(ops.size() - 1);
        String ull = "(unsigned long long*) " + p;
        String call = switch (at.op()) {
            case READ -> "*(volatile " + cType(t) + "*) " + p;
            case WRITE -> "*(volatile " + cType(t) + "*) " + p + " = " + v;
            case ADD, AND, OR, XOR -> {
                if (t == Type.F32) {
                    helpers.add(CudaHelpers.ATOMIC_ADD_F32);
                    yield "acc_atomic_add(" + p + ", " + v + ")";
                }
                String fn = "atomic" + at.op().routine().substring(6);
                yield t == Type.I64 ? "(long long) " + fn + "(" + ull + ", (unsigned long long) (" + v + "))"
                        : fn + "(" + p + ", " + v + ")";
            }
            case MIN, MAX -> {
                if (t.isFloat()) {
                    helpers.add(CudaHelpers.MIN_MAX);
                    helpers.add(CudaHelpers.ATOMIC_MIN_MAX_F);
                    yield "acc_atomic_" + at.op().routine().substring(6).toLowerCase(java.util.Locale.ROOT) + "(" + p
                            + ", " + v + ")";
                }
                yield "atomic" + at.op().routine().substring(6) + "(" + p + ", " + v + ")";
            }
            case EXCHANGE -> switch (t) {
                case I64 -> "(long long) atomicExch(" + ull + ", (unsigned long long) (" + v + "))";
                case F64 -> "__longlong_as_double((long long) atomicExch(" + ull + ", (unsigned long long) "
                        + "__double_as_longlong(" + v + ")))";
                default -> "atomicExch(" + p + ", " + v + ")";
            };
            case CAS -> {
                String e = ops.get(0);
                yield switch (t) {
                    case I32 -> "atomicCAS(" + p + ", " + e + ", " + v + ") == " + e;
                    case I64 -> "atomicCAS(" + ull + ", (unsigned long long) (" + e + "), (unsigned long long) (" + v
                            + ")) == (unsigned long long) (" + e + ")";
                    case F32 -> "atomicCAS((int*) " + p + ", __float_as_int(" + e + "), __float_as_int(" + v
                            + ")) == __float_as_int(" + e + ")";
                    default -> "atomicCAS(" + ull + ", (unsigned long long) __double_as_longlong(" + e + "), "
                            + "(unsigned long long) __double_as_longlong(" + v + ")) == (unsigned long long) "
                            + "__double_as_longlong(" + e + ")";
                };
            }
        };
        line((at.result() != null ? varNames.get(at.result()) + " = " : "") + call + ";");
    }

    private void checks(Expr e, int line) {
        if (!hasChecks(e)) {
            return;
        }
        if (e instanceof Expr.Load l) {
            checks(l.index(), line);
            if (l.row() == null) {
                boundsCheck(l.array(), l.index(), line);
            } else {
                checks(l.row(), line);
                rowCheck(l.array(), l.row(), line);
                columnCheck(l.array(), l.row(), l.index(), line);
            }
            return;
        }
        if (e instanceof Expr.Length l && l.row() != null) {
            checks(l.row(), line);
            rowCheck(l.array(), l.row(), line);
            return;
        }
        for (Expr c : Exprs.children(e)) {
            checks(c, line);
        }
        if (e instanceof Expr.Binary b && !b.type().isFloat() && (b.op() == BinOp.DIV || b.op() == BinOp.REM)) {
            int code = site(ErrorSite.Kind.DIVISION_BY_ZERO, null, line);
            line("if (" + expr(b.right(), Expressions.Prec.EQUALITY + 1).text() + " == 0) { acc_raise(" + err + ", " + code
                    + ", 0); " + fail + " }  /* ArithmeticException: / by zero */");
        }
    }

    private void boundsCheck(ArrayRef a, Expr index, int line) {
        int code = site(ErrorSite.Kind.INDEX_OUT_OF_BOUNDS, a.name(), line);
        String i = expr(index).text();
        line("if ((unsigned int) " + paren(index) + " >= (unsigned int) " + lengthNames.get(a) + ") { acc_raise(" + err
                + ", " + code + ", " + i + "); " + fail + " }");
    }

    private void rowCheck(ArrayRef a, Expr row, int line) {
        boundsCheck(a, row, line);
    }

    private void columnCheck(ArrayRef a, Expr row, Expr index, int line) {
        helpers.add(CudaHelpers.AT);
        int code = site(ErrorSite.Kind.INDEX_OUT_OF_BOUNDS, a.name() + "[]", line);
        String r = expr(row).text();
        line("if ((unsigned int) " + paren(index) + " >= (unsigned int) " + arrayNames.get(a) + "[" + r + "].length) { acc_raise("
                + err + ", " + code + ", acc_at(" + r + ", " + expr(index).text() + ")); " + fail + " }");
    }

    private String paren(Expr e) {
        return expr(e, Expressions.Prec.UNARY).text();
    }

    private int site(ErrorSite.Kind kind, String array, int line) {
        sites.add(new ErrorSite(kind, array, line));
        return sites.size();
    }

    private Expressions.C expr(Expr e) {
        return exprs.expr(e);
    }

    private Expressions.C expr(Expr e, int min) {
        return exprs.expr(e, min);
    }
}
