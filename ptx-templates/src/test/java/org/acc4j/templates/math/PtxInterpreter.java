package org.acc4j.templates.math;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An interpreter for the subset of PTX the math routines are written in, following the PTX ISA's semantics
 * (round-to-nearest IEEE arithmetic with subnormals, ordered and unordered compares, clamped shifts, saturating
 * float-to-integer conversions with NaN to 0). It lets the tests check, without a GPU, that each PTX routine
 * computes exactly what its Java mirror in {@link AccMath} computes. Anything outside the subset is rejected by
 * name, as are approximate instructions, flush-to-zero and rounding modes other than {@code .rn} on arithmetic.
 *
 * <p>Registers hold raw bits in a long (32-bit values sign-extended); parameters are 8-byte slots; globals are
 * arrays of 64-bit words at made-up addresses. Not thread-safe.
 */
final class PtxInterpreter {
    private static final Pattern GLOBAL = Pattern.compile(
            "\\.global\\s+\\.align\\s+\\d+\\s+\\.b64\\s+(\\w+)\\[(\\d+)\\]\\s*=\\s*\\{([^}]*)\\}\\s*;");
    private static final Pattern FUNC = Pattern.compile("\\.func\\s*(?:\\(([^)]*)\\))?\\s*(\\w+)\\s*\\(([^)]*)\\)\\s*\\{");
    private static final long GLOBAL_BASE = 0x1000_0000_0000L;

    private final List<long[]> globals = new ArrayList<>();
    private final Map<String, Integer> globalIndex = new HashMap<>();
    private final Map<String, Func> funcs = new HashMap<>();
    private long steps;

    PtxInterpreter(String module) {
        String text = module.replaceAll("/\\*(?s:.*?)\\*/", " ").replaceAll("//[^\\n]*", " ");
        Matcher g = GLOBAL.matcher(text);
        while (g.find()) {
            String[] vals = g.group(3).split(",");
            long[] words = new long[Integer.parseInt(g.group(2))];
            if (vals.length != words.length) {
                throw new IllegalArgumentException("global " + g.group(1) + ": " + vals.length + " initializers for "
                        + words.length + " words");
            }
            for (int i = 0; i < words.length; i++) {
                words[i] = parseInt(vals[i].trim());
            }
            globalIndex.put(g.group(1), globals.size());
            globals.add(words);
        }
        Matcher f = FUNC.matcher(text);
        while (f.find()) {
            int open = f.end() - 1;
            int depth = 0;
            int close = open;
            for (int i = open; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    close = i;
                    break;
                }
            }
            Func fn = new Func(f.group(2), params(f.group(1)), params(f.group(3)));
            fn.parseBody(text.substring(open + 1, close));
            funcs.put(fn.name, fn);
        }
    }

    /** The 64-bit words of a global table, as the module initializes them. */
    long[] global(String name) {
        Integer i = globalIndex.get(name);
        if (i == null) {
            throw new IllegalArgumentException("no global " + name);
        }
        return globals.get(i).clone();
    }

    /** Instructions executed since construction. */
    long steps() {
        return steps;
    }

    double callF64(String name, double... args) {
        long[] bits = new long[args.length];
        for (int i = 0; i < args.length; i++) {
            bits[i] = Double.doubleToRawLongBits(args[i]);
        }
        return Double.longBitsToDouble(call(name, bits)[0]);
    }

    float callF32(String name, float... args) {
        long[] bits = new long[args.length];
        for (int i = 0; i < args.length; i++) {
            bits[i] = Float.floatToRawIntBits(args[i]);
        }
        return Float.intBitsToFloat((int) call(name, bits)[0]);
    }

    /** Calls a function with one 8-byte slot per parameter; returns the first return parameter's slots. */
    long[] call(String name, long... args) {
        Func fn = funcs.get(name);
        if (fn == null) {
            throw new IllegalArgumentException("no function " + name);
        }
        Map<String, long[]> params = new HashMap<>();
        for (int i = 0; i < fn.inputs.size(); i++) {
            params.put(fn.inputs.get(i).name, new long[] {args[i]});
        }
        for (Param r : fn.outputs) {
            params.put(r.name, new long[r.slots]);
        }
        run(fn, params);
        return params.get(fn.outputs.get(0).name);
    }

    private record Param(String name, int slots) {
    }

    private static List<Param> params(String list) {
        List<Param> out = new ArrayList<>();
        if (list == null || list.isBlank()) {
            return out;
        }
        for (String p : list.split(",")) {
            out.add(param(p.trim()));
        }
        return out;
    }

    private static Param param(String decl) {
        // .param .f64 x | .param .align 8 .b8 r[16]
        String[] t = decl.trim().split("\\s+");
        if (!t[0].equals(".param")) {
            throw new IllegalArgumentException("only .param parameters are supported: " + decl);
        }
        String name = t[t.length - 1];
        int slots = 1;
        int bracket = name.indexOf('[');
        if (bracket >= 0) {
            slots = (Integer.parseInt(name.substring(bracket + 1, name.length() - 1)) + 7) / 8;
            name = name.substring(0, bracket);
        }
        return new Param(name, slots);
    }

    // ---------------------------------------------------------------- decoding

    private enum Kind { REG, IMM, SYM, MEM }

    /** An operand: a register index, an immediate's bits, a symbol, or memory [base + offset]. */
    private record Operand(Kind kind, int reg, long imm, String sym, long offset) {
    }

    private static final class Insn {
        String op;
        String[] mods;
        int guard = -1;
        boolean guardNegated;
        Operand[] args;
        String target;
        String callee;
        String[] callRets;
        String[] callArgs;
        String text;
    }

    private final class Func {
        final String name;
        final List<Param> outputs;
        final List<Param> inputs;
        final Map<String, Integer> regs = new HashMap<>();
        final Map<String, Integer> labels = new HashMap<>();
        final Map<String, Integer> localParams = new HashMap<>();
        final List<Insn> code = new ArrayList<>();

        Func(String name, List<Param> outputs, List<Param> inputs) {
            this.name = name;
            this.outputs = outputs;
            this.inputs = inputs;
        }

        void parseBody(String body) {
            for (String raw : body.split(";")) {
                String s = raw.trim();
                while (true) {
                    if (s.startsWith("{") || s.startsWith("}")) {
                        s = s.substring(1).trim();
                    } else if (s.matches("(?s)^[$\\w]+:.*")) {
                        int colon = s.indexOf(':');
                        labels.put(s.substring(0, colon), code.size());
                        s = s.substring(colon + 1).trim();
                    } else {
                        break;
                    }
                }
                if (s.isEmpty() || s.startsWith(".reg")) {
                    continue;
                }
                if (s.startsWith(".param")) {
                    Param p = param(s);
                    localParams.merge(p.name, p.slots, Math::max);
                    continue;
                }
                code.add(decode(s));
            }
        }

        int reg(String r) {
            return regs.computeIfAbsent(r, k -> regs.size());
        }

        Insn decode(String s) {
            Insn in = new Insn();
            in.text = s;
            if (s.startsWith("@")) {
                int sp = s.indexOf(' ');
                String g = s.substring(1, sp);
                in.guardNegated = g.startsWith("!");
                in.guard = reg(in.guardNegated ? g.substring(1) : g);
                s = s.substring(sp + 1).trim();
            }
            int sp = s.indexOf(' ');
            String opcode = sp < 0 ? s : s.substring(0, sp);
            String rest = sp < 0 ? "" : s.substring(sp + 1).trim();
            String[] parts = opcode.split("\\.");
            in.op = parts[0];
            in.mods = java.util.Arrays.copyOfRange(parts, 1, parts.length);
            checkAllowed(in);
            switch (in.op) {
                case "bra" -> in.target = rest;
                case "ret" -> in.args = new Operand[0];
                case "call" -> {
                    Matcher m = Pattern.compile("\\(([^)]*)\\)\\s*,\\s*(\\w+)\\s*,\\s*\\(([^)]*)\\)").matcher(rest);
                    if (!m.matches()) {
                        throw new IllegalArgumentException("unsupported call form: " + s);
                    }
                    in.callRets = m.group(1).trim().split("\\s*,\\s*");
                    in.callee = m.group(2);
                    in.callArgs = m.group(3).trim().split("\\s*,\\s*");
                }
                default -> {
                    String[] ops = rest.split("\\s*,\\s*");
                    in.args = new Operand[ops.length];
                    for (int i = 0; i < ops.length; i++) {
                        in.args[i] = operand(ops[i].trim());
                    }
                }
            }
            return in;
        }

        Operand operand(String o) {
            if (o.startsWith("%")) {
                return new Operand(Kind.REG, reg(o), 0, null, 0);
            }
            if (o.startsWith("[")) {
                String inner = o.substring(1, o.length() - 1).trim();
                long off = 0;
                int plus = inner.indexOf('+');
                if (plus >= 0) {
                    off = parseInt(inner.substring(plus + 1).trim());
                    inner = inner.substring(0, plus).trim();
                }
                if (inner.startsWith("%")) {
                    return new Operand(Kind.MEM, reg(inner), 0, null, off);
                }
                return new Operand(Kind.MEM, -1, 0, inner, off);
            }
            if (o.matches("-?(0[dDfFxX][0-9a-fA-F]+|\\d+)")) {
                return new Operand(Kind.IMM, -1, parseInt(o), null, 0);
            }
            return new Operand(Kind.SYM, -1, 0, o, 0);
        }
    }

    private static final java.util.Set<String> ALLOWED = java.util.Set.of("mov", "add", "sub", "mul", "fma", "div",
            "neg", "abs", "sqrt", "and", "or", "xor", "not", "shl", "shr", "setp", "selp", "cvt", "clz", "ld", "st", "bra",
            "call", "ret");

    private static void checkAllowed(Insn in) {
        if (!ALLOWED.contains(in.op)) {
            throw new IllegalArgumentException("instruction outside the supported subset: " + in.text);
        }
        List<String> mods = List.of(in.mods);
        for (String bad : new String[] {"approx", "ftz", "sat", "full", "rz", "rm", "rp"}) {
            if (mods.contains(bad)) {
                throw new IllegalArgumentException("non-IEEE or non-nearest modifier ." + bad + ": " + in.text);
            }
        }
        boolean floatArith = List.of("add", "sub", "mul", "fma", "div", "sqrt").contains(in.op)
                && (mods.contains("f64") || mods.contains("f32"));
        if (floatArith && !mods.contains("rn")) {
            throw new IllegalArgumentException("float arithmetic must say .rn: " + in.text);
        }
    }

    private static long parseInt(String s) {
        String t = s.trim();
        boolean neg = t.startsWith("-");
        if (neg) {
            t = t.substring(1);
        }
        long v;
        if (t.startsWith("0d") || t.startsWith("0D") || t.startsWith("0x") || t.startsWith("0X")) {
            v = Long.parseUnsignedLong(t.substring(2), 16);
        } else if (t.startsWith("0f") || t.startsWith("0F")) {
            v = Integer.parseUnsignedInt(t.substring(2), 16);
        } else {
            v = Long.parseLong(t);
        }
        return neg ? -v : v;
    }

    // ---------------------------------------------------------------- execution

    private void run(Func fn, Map<String, long[]> params) {
        long[] r = new long[fn.regs.size()];
        int pc = 0;
        while (true) {
            Insn in = fn.code.get(pc++);
            steps++;
            if (in.guard >= 0 && (r[in.guard] != 0) == in.guardNegated) {
                continue;
            }
            switch (in.op) {
                case "ret" -> {
                    return;
                }
                case "bra" -> {
                    Integer to = fn.labels.get(in.target);
                    if (to == null) {
                        throw new IllegalStateException("no label " + in.target + " in " + fn.name);
                    }
                    pc = to;
                }
                case "call" -> call(in, params);
                case "ld" -> r[in.args[0].reg()] = load(in, r, params);
                case "st" -> store(in, r, params);
                default -> r[in.args[0].reg()] = compute(in, r);
            }
        }
    }

    private void call(Insn in, Map<String, long[]> params) {
        Func callee = funcs.get(in.callee);
        if (callee == null) {
            throw new IllegalStateException("call to undefined function " + in.callee);
        }
        Map<String, long[]> inner = new HashMap<>();
        for (int i = 0; i < callee.inputs.size(); i++) {
            inner.put(callee.inputs.get(i).name, params.get(in.callArgs[i]).clone());
        }
        for (Param p : callee.outputs) {
            inner.put(p.name, new long[p.slots]);
        }
        run(callee, inner);
        for (int i = 0; i < in.callRets.length; i++) {
            params.put(in.callRets[i], inner.get(callee.outputs.get(i).name));
        }
    }

    private long load(Insn in, long[] r, Map<String, long[]> params) {
        Operand m = in.args[1];
        String type = in.mods[in.mods.length - 1];
        if (in.mods[0].equals("param")) {
            long[] slots = params.get(m.sym());
            if (slots == null) {
                throw new IllegalStateException("ld from unwritten parameter " + m.sym() + ": " + in.text);
            }
            return narrow(slots[(int) (m.offset() / 8)], type);
        }
        if (!in.mods[0].equals("global") || m.reg() < 0) {
            throw new IllegalArgumentException("unsupported load: " + in.text);
        }
        long addr = r[m.reg()] + m.offset();
        int g = (int) ((addr - GLOBAL_BASE) >>> 32);
        long off = (addr - GLOBAL_BASE) & 0xFFFFFFFFL;
        if (g < 0 || g >= globals.size() || (off & 7) != 0 || off / 8 >= globals.get(g).length
                || bits(type) != 64) {
            throw new IllegalStateException("bad global load at 0x" + Long.toHexString(addr) + ": " + in.text);
        }
        return globals.get(g)[(int) (off / 8)];
    }

    private void store(Insn in, long[] r, Map<String, long[]> params) {
        Operand m = in.args[0];
        if (!in.mods[0].equals("param") || m.sym() == null) {
            throw new IllegalArgumentException("unsupported store: " + in.text);
        }
        long[] slots = params.computeIfAbsent(m.sym(), k -> new long[8]);
        slots[(int) (m.offset() / 8)] = value(in.args[1], r);
    }

    private long value(Operand o, long[] r) {
        return switch (o.kind()) {
            case REG -> r[o.reg()];
            case IMM -> o.imm();
            case SYM -> {
                Integer g = globalIndex.get(o.sym());
                if (g == null) {
                    throw new IllegalStateException("unknown symbol " + o.sym());
                }
                yield GLOBAL_BASE + ((long) g << 32);
            }
            case MEM -> throw new IllegalStateException("memory operand where a value was expected");
        };
    }

    private static int bits(String type) {
        return type.equals("pred") ? 1 : Integer.parseInt(type.substring(1));
    }

    /** A value of the type's width as a register holds it: 32-bit values sign-extended. */
    private static long narrow(long v, String type) {
        return bits(type) == 32 ? (long) (int) v : v;
    }

    private long compute(Insn in, long[] r) {
        String[] m = in.mods;
        String type = m.length == 0 ? "" : m[m.length - 1];
        Operand[] a = in.args;
        switch (in.op) {
            case "mov":
                return narrow(value(a[1], r), type);
            case "selp":
                return r[a[3].reg()] != 0 ? value(a[1], r) : value(a[2], r);
            case "setp":
                return compare(m[0], type, value(a[1], r), value(a[2], r)) ? 1 : 0;
            case "cvt":
                return convert(in, value(a[1], r));
            case "clz":
                return type.equals("b64") ? Long.numberOfLeadingZeros(value(a[1], r))
                        : Integer.numberOfLeadingZeros((int) value(a[1], r));
            default:
                break;
        }
        if (type.equals("f64")) {
            double x = Double.longBitsToDouble(value(a[1], r));
            double y = a.length > 2 ? Double.longBitsToDouble(value(a[2], r)) : 0;
            double res = switch (in.op) {
                case "add" -> x + y;
                case "sub" -> x - y;
                case "mul" -> x * y;
                case "div" -> x / y;
                case "fma" -> Math.fma(x, y, Double.longBitsToDouble(value(a[3], r)));
                case "neg" -> -x;
                case "abs" -> Math.abs(x);
                case "sqrt" -> Math.sqrt(x);
                default -> throw new IllegalArgumentException("unsupported f64 op: " + in.text);
            };
            return Double.doubleToRawLongBits(res);
        }
        if (type.equals("f32")) {
            float x = Float.intBitsToFloat((int) value(a[1], r));
            float y = a.length > 2 ? Float.intBitsToFloat((int) value(a[2], r)) : 0;
            float res = switch (in.op) {
                case "add" -> x + y;
                case "sub" -> x - y;
                case "mul" -> x * y;
                case "div" -> x / y;
                case "fma" -> Math.fma(x, y, Float.intBitsToFloat((int) value(a[3], r)));
                case "neg" -> -x;
                case "abs" -> Math.abs(x);
                default -> throw new IllegalArgumentException("unsupported f32 op: " + in.text);
            };
            return Float.floatToRawIntBits(res);
        }
        long x = value(a[1], r);
        long y = a.length > 2 ? value(a[2], r) : 0;
        int w = bits(type);
        long res = switch (in.op) {
            case "add" -> x + y;
            case "sub" -> x - y;
            case "mul" -> {
                if (m[0].equals("lo")) {
                    yield x * y;
                }
                if (m[0].equals("hi") && type.equals("u64")) {
                    yield Math.multiplyHigh(x, y) + ((x >> 63) & y) + ((y >> 63) & x);
                }
                throw new IllegalArgumentException("unsupported mul: " + in.text);
            }
            case "and" -> x & y;
            case "or" -> x | y;
            case "xor" -> x ^ y;
            case "not" -> type.equals("pred") ? (x != 0 ? 0 : 1) : ~x;
            case "neg" -> -x;
            case "shl" -> (y & 0xFFFFFFFFL) >= w ? 0 : x << y;
            case "shr" -> {
                long amount = y & 0xFFFFFFFFL;
                boolean signed = type.startsWith("s");
                long v = w == 32 && !signed ? x & 0xFFFFFFFFL : x;
                if (amount >= w) {
                    yield signed && v < 0 ? -1 : 0;
                }
                yield signed ? v >> amount : v >>> amount;
            }
            default -> throw new IllegalArgumentException("unsupported integer op: " + in.text);
        };
        if (type.equals("pred")) {
            return res & 1;
        }
        return narrow(res, type);
    }

    private static boolean compare(String cmp, String type, long x, long y) {
        if (type.equals("f64") || type.equals("f32")) {
            double a = type.equals("f64") ? Double.longBitsToDouble(x) : Float.intBitsToFloat((int) x);
            double b = type.equals("f64") ? Double.longBitsToDouble(y) : Float.intBitsToFloat((int) y);
            boolean unordered = Double.isNaN(a) || Double.isNaN(b);
            return switch (cmp) {
                case "eq" -> a == b;
                case "ne" -> !unordered && a != b;
                case "lt" -> a < b;
                case "le" -> a <= b;
                case "gt" -> a > b;
                case "ge" -> a >= b;
                case "equ" -> unordered || a == b;
                case "neu" -> unordered || a != b;
                case "ltu" -> unordered || a < b;
                case "leu" -> unordered || a <= b;
                case "gtu" -> unordered || a > b;
                case "geu" -> unordered || a >= b;
                case "num" -> !unordered;
                case "nan" -> unordered;
                default -> throw new IllegalArgumentException("unsupported float compare " + cmp);
            };
        }
        boolean unsigned = type.startsWith("u") || type.startsWith("b");
        int c = unsigned ? Long.compareUnsigned(bits(type) == 32 ? x & 0xFFFFFFFFL : x,
                bits(type) == 32 ? y & 0xFFFFFFFFL : y) : Long.compare(x, y);
        return switch (cmp) {
            case "eq" -> c == 0;
            case "ne" -> c != 0;
            case "lt", "lo" -> c < 0;
            case "le", "ls" -> c <= 0;
            case "gt", "hi" -> c > 0;
            case "ge", "hs" -> c >= 0;
            default -> throw new IllegalArgumentException("unsupported integer compare " + cmp);
        };
    }

    private static long convert(Insn in, long v) {
        String[] m = in.mods;
        String dst = m[m.length - 2];
        String src = m[m.length - 1];
        String mode = m.length > 2 ? m[0] : "";
        boolean dstFloat = dst.startsWith("f");
        boolean srcFloat = src.startsWith("f");
        if (srcFloat) {
            double x = src.equals("f64") ? Double.longBitsToDouble(v) : Float.intBitsToFloat((int) v);
            if (dstFloat) {
                double y = switch (mode) {
                    case "rni" -> Math.rint(x);
                    case "rzi" -> x >= 0 ? Math.floor(x) : Math.ceil(x);
                    case "rmi" -> Math.floor(x);
                    case "rpi" -> Math.ceil(x);
                    case "rn", "" -> x;
                    default -> throw new IllegalArgumentException("unsupported cvt mode: " + in.text);
                };
                if (dst.equals("f64")) {
                    if (!src.equals("f64") && !mode.isEmpty()) {
                        throw new IllegalArgumentException("unsupported cvt: " + in.text);
                    }
                    return Double.doubleToRawLongBits(y);
                }
                if (src.equals("f64") && !mode.equals("rn")) {
                    throw new IllegalArgumentException("narrowing cvt needs .rn: " + in.text);
                }
                return Float.floatToRawIntBits((float) y);
            }
            double i = switch (mode) {
                case "rni" -> Math.rint(x);
                case "rzi" -> x >= 0 ? Math.floor(x) : Math.ceil(x);
                case "rmi" -> Math.floor(x);
                case "rpi" -> Math.ceil(x);
                default -> throw new IllegalArgumentException("float to integer cvt needs a rounding mode: " + in.text);
            };
            // PTX saturates and turns NaN into 0, as Java's casts do
            return switch (dst) {
                case "s64" -> (long) i;
                case "s32" -> (int) i;
                case "u32" -> (long) (int) (long) Math.max(0, Math.min(4294967295.0, i));
                case "u64" -> i >= 0x1p64 ? -1L : i <= 0 ? 0 : i >= 0x1p63 ? (long) (i - 0x1p63) + Long.MIN_VALUE : (long) i;
                default -> throw new IllegalArgumentException("unsupported cvt: " + in.text);
            };
        }
        if (dstFloat) {
            if (!mode.equals("rn")) {
                throw new IllegalArgumentException("integer to float cvt needs .rn: " + in.text);
            }
            double x = switch (src) {
                case "s64" -> (double) v;
                case "u64" -> v >= 0 ? (double) v : (double) (v >>> 1 | (v & 1)) * 2.0;
                case "s32" -> (double) (int) v;
                case "u32" -> (double) (v & 0xFFFFFFFFL);
                default -> throw new IllegalArgumentException("unsupported cvt: " + in.text);
            };
            return dst.equals("f64") ? Double.doubleToRawLongBits(x) : Float.floatToRawIntBits((float) x);
        }
        long x = switch (src) {
            case "u32" -> v & 0xFFFFFFFFL;
            case "s32" -> (int) v;
            default -> v;
        };
        return narrow(x, dst.equals("u32") || dst.equals("s32") ? "b32" : "b64");
    }
}
