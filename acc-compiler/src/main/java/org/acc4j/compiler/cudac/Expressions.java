package org.acc4j.compiler.cudac;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Type;

/**
 * The expressions of a kernel rendered as C by {@link CudaCRenderer}: one method per kind of expression, so a new kind
 * does not compile until it has its C text; each result carries the precedence of its outermost operator, so that
 * parentheses appear only where C needs them. Where C's rules differ from Java's the text calls a helper of
 * {@link CudaHelpers}, which the renderer then writes at the top of the file.
 */
final class Expressions implements Expr.Visitor<Expressions.C> {
    private final CudaCRenderer renderer;

    Expressions(CudaCRenderer renderer) {
        this.renderer = renderer;
    }

    /** C operator precedences, higher binds tighter. */
    static final class Prec {
        static final int CONDITIONAL = 3;
        static final int OR = 6;
        static final int XOR = 7;
        static final int AND = 8;
        static final int EQUALITY = 9;
        static final int RELATIONAL = 10;
        static final int SHIFT = 11;
        static final int ADDITIVE = 12;
        static final int MULTIPLICATIVE = 13;
        static final int UNARY = 15;
        static final int PRIMARY = 16;
    }

    /** C text and the precedence of its outermost operator. */
    record C(String text, int prec) {
        C within(int min) {
            return prec >= min ? this : new C("(" + text + ")", Prec.PRIMARY);
        }
    }

    C expr(Expr e, int min) {
        return expr(e).within(min);
    }

    /** {@code e} as C text. */
    C expr(Expr e) {
        return e.accept(this);
    }

    @Override
    public C visit(Expr.Local l) {
        return new C(renderer.varNames.get(l.var()), Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.FieldValue f) {
        return new C(renderer.fieldNames.get(f.field()), Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.Length l) {
        return new C(l.row() == null ? renderer.lengthNames.get(l.array())
                : renderer.arrayNames.get(l.array()) + "[" + expr(l.row()).text + "].length", Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.Load l) {
        return new C(renderer.arrayNames.get(l.array()) + (l.row() != null ? "[" + expr(l.row()).text + "].data" : "") + "["
                + expr(l.index()).text + "]", Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.Unary u) {
        return switch (u.op()) {
            case NEG -> {
                String x = expr(u.operand(), Prec.UNARY).text;
                yield new C("-" + (x.startsWith("-") ? "(" + x + ")" : x), Prec.UNARY);
            }
            case NOT -> new C("!" + expr(u.operand(), Prec.UNARY).text, Prec.UNARY);
            case TO_BYTE -> new C("(signed char) " + expr(u.operand(), Prec.UNARY).text, Prec.UNARY);
            case TO_SHORT -> new C("(short) " + expr(u.operand(), Prec.UNARY).text, Prec.UNARY);
            case TO_CHAR -> new C(expr(u.operand(), Prec.AND).text + " & 0xffff", Prec.AND);
        };
    }

    @Override
    public C visit(Expr.Select s) {
        return new C(expr(s.cond(), Prec.CONDITIONAL + 1).text + " ? " + expr(s.ifTrue(), Prec.CONDITIONAL + 1).text
                + " : " + expr(s.ifFalse(), Prec.CONDITIONAL).text, Prec.CONDITIONAL);
    }

    @Override
    public C visit(Expr.Cmp3 c) {
        renderer.helpers.add(CudaHelpers.CMP);
        String fn = !c.left().type().isFloat() ? "acc_cmp" : c.nanIsOne() ? "acc_cmpg" : "acc_cmpl";
        return new C(fn + "(" + expr(c.left()).text + ", " + expr(c.right()).text + ")", Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.Const k) {
        return constant(k);
    }

    static C constant(Expr.Const k) {
        String s = switch (k.type()) {
            case I32 -> (int) k.bits() == Integer.MIN_VALUE ? "(-2147483647 - 1)" : Integer.toString((int) k.bits());
            case I64 -> k.bits() == Long.MIN_VALUE ? "(-9223372036854775807LL - 1)" : k.bits() + "LL";
            case F32 -> floatLiteral(Float.intBitsToFloat((int) k.bits()));
            case F64 -> doubleLiteral(Double.longBitsToDouble(k.bits()));
            case PRED -> k.bits() != 0 ? "true" : "false";
        };
        // a negative literal gets parentheses after a unary operator or a cast: -(-1), (long long) (-1)
        return new C(s, s.startsWith("-") ? Prec.UNARY - 1 : Prec.PRIMARY);
    }

    private static String doubleLiteral(double v) {
        if (Double.isNaN(v)) {
            return String.format("__longlong_as_double(0x%016xLL) /* NaN */", Double.doubleToRawLongBits(v));
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "__longlong_as_double(0x7ff0000000000000LL) /* Infinity */"
                    : "__longlong_as_double(0xfff0000000000000LL) /* -Infinity */";
        }
        String s = Double.toString(v);
        if (Double.doubleToRawLongBits(Double.parseDouble(s)) != Double.doubleToRawLongBits(v)) {
            return String.format("__longlong_as_double(0x%016xLL)", Double.doubleToRawLongBits(v));
        }
        return s;
    }

    private static String floatLiteral(float v) {
        if (Float.isNaN(v) || Float.isInfinite(v)) {
            return String.format("__int_as_float(0x%08x) /* %s */", Float.floatToRawIntBits(v), v);
        }
        String s = Float.toString(v);
        if (Float.floatToRawIntBits(Float.parseFloat(s)) != Float.floatToRawIntBits(v)) {
            return String.format("__int_as_float(0x%08x)", Float.floatToRawIntBits(v));
        }
        return s + "f";
    }

    @Override
    public C visit(Expr.Call c) {
        List<String> args = new ArrayList<>();
        for (Expr a : c.args()) {
            args.add(expr(a).text);
        }
        boolean f32 = c.type() == Type.F32;
        boolean isFloat = c.type().isFloat();
        String fn = switch (c.fn()) {
            case SQRT -> f32 ? "__fsqrt_rn" : "__dsqrt_rn";
            case FMA -> f32 ? "__fmaf_rn" : "__fma_rn";
            case FLOOR -> f32 ? "floorf" : "floor";
            case CEIL -> f32 ? "ceilf" : "ceil";
            case RINT -> f32 ? "rintf" : "rint";
            case ABS -> {
                if (isFloat) {
                    yield f32 ? "fabsf" : "fabs";
                }
                renderer.helpers.add(CudaHelpers.ABS);
                yield "acc_abs";
            }
            case MIN, MAX -> {
                if (isFloat) {
                    renderer.helpers.add(CudaHelpers.MIN_MAX);
                    yield "acc_" + c.fn().javaName();
                }
                yield c.fn().javaName();
            }
            case BIT_COUNT, LEADING_ZEROS, TRAILING_ZEROS, REVERSE, RAW_BITS, FROM_BITS -> {
                boolean wide = c.args().get(0).type().isWide();
                yield switch (c.fn()) {
                    case BIT_COUNT -> wide ? "__popcll" : "__popc";
                    case LEADING_ZEROS -> wide ? "__clzll" : "__clz";
                    case TRAILING_ZEROS -> wide ? "__clzll(__brevll" : "__clz(__brev";
                    case REVERSE -> wide ? "__brevll" : "__brev";
                    case RAW_BITS -> wide ? "__double_as_longlong" : "__float_as_int";
                    default -> wide ? "__longlong_as_double" : "__int_as_float";
                };
            }
            default -> {
                renderer.mathCalls.add(c.fn().javaName());
                yield f32 ? c.fn().javaName() + "f" : c.fn().javaName();
            }
        };
        String close = c.fn() == org.acc4j.compiler.ir.MathFn.TRAILING_ZEROS ? "))" : ")";
        return new C(fn + "(" + String.join(", ", args) + close, Prec.PRIMARY);
    }

    @Override
    public C visit(Expr.Binary b) {
        Type t = b.type();
        BinOp op = b.op();
        if (!t.isFloat() && (op == BinOp.DIV || op == BinOp.REM)) {
            renderer.helpers.add(CudaHelpers.DIV);
            return new C((op == BinOp.DIV ? "acc_div(" : "acc_rem(") + expr(b.left()).text + ", " + expr(b.right()).text
                    + ")", Prec.PRIMARY);
        }
        if (op.isShift()) {
            if (op == BinOp.SHR && b.right() instanceof Expr.Const k && (int) k.bits() >= 0
                    && (int) k.bits() < (t == Type.I64 ? 64 : 32)) {
                return new C(expr(b.left(), Prec.SHIFT).text + " >> " + (int) k.bits(), Prec.SHIFT);
            }
            renderer.helpers.add(CudaHelpers.SHIFT);
            String fn = switch (op) {
                case SHL -> "acc_shl";
                case SHR -> "acc_shr";
                default -> "acc_ushr";
            };
            return new C(fn + "(" + expr(b.left()).text + ", " + expr(b.right()).text + ")", Prec.PRIMARY);
        }
        int prec = switch (op) {
            case ADD, SUB -> Prec.ADDITIVE;
            case MUL, DIV, REM -> Prec.MULTIPLICATIVE;
            case AND -> Prec.AND;
            case XOR -> Prec.XOR;
            case OR -> Prec.OR;
            default -> throw new IllegalStateException(op.name());
        };
        C left = expr(b.left());
        C right = expr(b.right());
        boolean bitwise = op == BinOp.AND || op == BinOp.OR || op == BinOp.XOR;
        // left-associative: the left operand may share the precedence, the right one may not; bitwise operators
        // get parentheses around any other operator, as a reader expects
        String l = bitwise && left.prec < Prec.PRIMARY && left.prec != Prec.UNARY && !sameOp(b.left(), op)
                ? "(" + left.text + ")" : left.within(prec).text;
        String r = bitwise && right.prec < Prec.PRIMARY && right.prec != Prec.UNARY ? "(" + right.text + ")"
                : right.within(prec + 1).text;
        return new C(l + " " + op.symbol() + " " + r, prec);
    }

    private static boolean sameOp(Expr e, BinOp op) {
        return e instanceof Expr.Binary b && b.op() == op;
    }

    @Override
    public C visit(Expr.Convert c) {
        Type from = c.operand().type();
        Type to = c.type();
        if (from == to) {
            return expr(c.operand());
        }
        if (from.isFloat() && !to.isFloat() && to != Type.PRED) {
            renderer.helpers.add(CudaHelpers.TO_INT);
            String fn = "acc_" + (from == Type.F64 ? "d" : "f") + "2" + (to == Type.I64 ? "l" : "i");
            return new C(fn + "(" + expr(c.operand()).text + ")", Prec.PRIMARY);
        }
        return new C("(" + CudaCRenderer.cType(to) + ") " + expr(c.operand(), Prec.UNARY).text, Prec.UNARY);
    }

    @Override
    public C visit(Expr.Compare c) {
        boolean isFloat = c.left().type().isFloat();
        Cond cond = c.cond();
        if (isFloat && (c.unordered() ? cond != Cond.NE : cond == Cond.NE)) {
            renderer.helpers.add(CudaHelpers.NAN_COMPARE);
            String fn = c.unordered() ? "acc_" + cond.name().toLowerCase() + "_or_nan" : "acc_ne_ordered";
            return new C(fn + "(" + expr(c.left()).text + ", " + expr(c.right()).text + ")", Prec.PRIMARY);
        }
        int prec = cond == Cond.EQ || cond == Cond.NE ? Prec.EQUALITY : Prec.RELATIONAL;
        return new C(expr(c.left(), prec).text + " " + cond.symbol() + " " + expr(c.right(), prec + 1).text, prec);
    }

    static String identity(Reduction r) {
        long bits = r.identityBits();
        return switch (r.type()) {
            case I32 -> constant(Expr.Const.i32((int) bits)).text;
            case I64 -> constant(Expr.Const.i64(bits)).text;
            case F32 -> constant(new Expr.Const(Type.F32, bits)).text;
            case F64 -> constant(new Expr.Const(Type.F64, bits)).text;
            case PRED -> throw new IllegalStateException("a reduction over a predicate");
        };
    }
}
