package org.acc4j.compiler.ir;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Evaluates scalar IR on the host with Java's semantics: loop bounds before a launch, and a region's prologue.
 * Values are boxed Java primitives (Integer, Long, Float, Double, Boolean). An array load cannot be evaluated
 * here (the data may live on the device): it throws {@link NotEvaluable}.
 */
public class Evaluator {
    /** Thrown for expressions that need array contents. */
    public static final class NotEvaluable extends RuntimeException {
        public NotEvaluable(String what) {
            super(what, null, false, false);
        }
    }

    private final Map<Var, Object> locals = new HashMap<>();
    private final Function<ArrayRef.Source, Object> sources;

    private final boolean memory;

    /** @param sources gives a parameter's or field's value (an array for array sources) */
    public Evaluator(Function<ArrayRef.Source, Object> sources) {
        this(sources, false);
    }

    /** With {@code memory}, array loads read the arrays {@code sources} gives (for the kernel interpreter). */
    public Evaluator(Function<ArrayRef.Source, Object> sources, boolean memory) {
        this.sources = sources;
        this.memory = memory;
    }

    /** The array (or row) an access reads or writes, with Java's checks. */
    public Object array(ArrayRef a, Expr row) {
        Object array = sources.apply(a.source());
        if (array == null) {
            throw new NullPointerException("Cannot load from array because \"" + a.name() + "\" is null");
        }
        if (row != null) {
            int r = (Integer) eval(row);
            checkIndex(array, r);
            array = ((Object[]) array)[r];
            if (array == null) {
                throw new NullPointerException("a row of " + a.name() + " is null");
            }
        }
        return array;
    }

    /** Java's check and message for {@code array[index]} (java.lang.reflect.Array throws without a message). */
    public static void checkIndex(Object array, int index) {
        // explicit: an implicit exception in hot code may come without its message
        int length = java.lang.reflect.Array.getLength(array);
        if (index < 0 || index >= length) {
            throw new ArrayIndexOutOfBoundsException("Index " + index + " out of bounds for length " + length);
        }
    }

    /**
     * {@code array[index]} as the IR computes with it: a {@code boolean}, {@code byte}, {@code short} or {@code char}
     * element widens to an {@code Integer} as Java's {@code baload}, {@code saload} and {@code caload} do.
     */
    public static Object element(Object array, int index) {
        if (array instanceof byte[] a) {
            return (int) a[index];
        }
        if (array instanceof short[] a) {
            return (int) a[index];
        }
        if (array instanceof char[] a) {
            return (int) a[index];
        }
        if (array instanceof boolean[] a) {
            return a[index] ? 1 : 0;
        }
        return java.lang.reflect.Array.get(array, index);
    }

    /**
     * Stores a computed value into {@code array[index]}, narrowing as Java's {@code bastore}, {@code sastore} and
     * {@code castore} do: the low 8 or 16 bits of an {@code Integer}, its lowest bit for a {@code boolean[]}.
     */
    public static void store(Object array, int index, Object value) {
        if (array instanceof byte[] a) {
            a[index] = (byte) (int) (Integer) value;
        } else if (array instanceof short[] a) {
            a[index] = (short) (int) (Integer) value;
        } else if (array instanceof char[] a) {
            a[index] = (char) (int) (Integer) value;
        } else if (array instanceof boolean[] a) {
            a[index] = ((Integer) value & 1) != 0;
        } else {
            java.lang.reflect.Array.set(array, index, value);
        }
    }

    public void set(Var v, Object value) {
        locals.put(v, value);
    }

    public Object get(Var v) {
        return locals.get(v);
    }

    /** Runs scalar statements (assignments and ifs), as a prologue. */
    public void run(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                locals.put(a.var(), eval(a.value()));
            } else if (s instanceof Stmt.If i) {
                run((Boolean) eval(i.cond()) ? i.then() : i.otherwise());
            } else {
                throw new NotEvaluable("statement " + s.getClass().getSimpleName());
            }
        }
    }

    public long evalLong(Expr e) {
        return ((Number) eval(e)).longValue();
    }

    /** The value of {@code e}: a boxed Integer, Long, Float, Double or Boolean, as Java computes it. */
    public Object eval(Expr e) {
        return e.accept(values);
    }

    /** One method per kind of expression (checked exhaustive); each evaluates its operands through {@link #eval}. */
    private final Expr.Visitor<Object> values = new Expr.Visitor<>() {
        @Override
        public Object visit(Expr.Const k) {
            return switch (k.type()) {
                case I32 -> (int) k.bits();
                case I64 -> k.bits();
                case F32 -> Float.intBitsToFloat((int) k.bits());
                case F64 -> Double.longBitsToDouble(k.bits());
                case PRED -> k.bits() != 0;
            };
        }

        @Override
        public Object visit(Expr.Local l) {
            Object v = locals.get(l.var());
            if (v == null) {
                throw new NotEvaluable("variable " + l.var().name());
            }
            return v;
        }

        @Override
        public Object visit(Expr.FieldValue f) {
            return sources.apply(f.field());
        }

        @Override
        public Object visit(Expr.Length l) {
            Object array = sources.apply(l.array().source());
            if (array == null) {
                throw new NullPointerException("Cannot read the array length because \"" + l.array().name()
                        + "\" is null");
            }
            if (l.row() != null) {
                int r = (Integer) eval(l.row());
                checkIndex(array, r);
                array = java.lang.reflect.Array.get(array, r);
            }
            return java.lang.reflect.Array.getLength(array);
        }

        @Override
        public Object visit(Expr.Load l) {
            if (!memory) {
                throw new NotEvaluable("array load " + l);
            }
            Object array = array(l.array(), l.row());
            int index = (Integer) eval(l.index());
            loaded(l, array, index);
            checkIndex(array, index);
            return element(array, index);
        }

        @Override
        public Object visit(Expr.Call c) {
            Object[] a = new Object[c.args().size()];
            for (int k = 0; k < a.length; k++) {
                a[k] = eval(c.args().get(k));
            }
            return MathCalls.call(c.fn(), c.type(), a);
        }

        @Override
        public Object visit(Expr.Binary b) {
            return binary(b.op(), eval(b.left()), eval(b.right()));
        }

        @Override
        public Object visit(Expr.Unary u) {
            Object v = eval(u.operand());
            return switch (u.op()) {
                case NEG -> v instanceof Integer i ? (Object) (-i) : v instanceof Long l ? (Object) (-l)
                        : v instanceof Float f ? (Object) (-f) : (Object) (-(Double) v);
                case TO_BYTE -> (int) (byte) (int) (Integer) v;
                case TO_SHORT -> (int) (short) (int) (Integer) v;
                case TO_CHAR -> (int) (char) (int) (Integer) v;
                case NOT -> !(Boolean) v;
            };
        }

        @Override
        public Object visit(Expr.Convert c) {
            Number n = (Number) eval(c.operand());
            boolean fromFloat = n instanceof Float || n instanceof Double;
            return switch (c.type()) {
                case I32 -> fromFloat ? (Object) (int) n.doubleValue() : (Object) n.intValue();
                case I64 -> fromFloat ? (Object) (long) n.doubleValue() : (Object) n.longValue();
                case F32 -> n instanceof Double d ? (Object) (float) (double) d
                        : n instanceof Long l ? (Object) (float) (long) l : (Object) n.floatValue();
                case F64 -> n instanceof Long l ? (Object) (double) (long) l : (Object) n.doubleValue();
                case PRED -> throw new IllegalStateException("convert to pred");
            };
        }

        @Override
        public Object visit(Expr.Compare c) {
            return compare(c, eval(c.left()), eval(c.right()));
        }

        @Override
        public Object visit(Expr.Select s) {
            return (Boolean) eval(s.cond()) ? eval(s.ifTrue()) : eval(s.ifFalse());
        }

        @Override
        public Object visit(Expr.Cmp3 c) {
            Object l = eval(c.left());
            Object r = eval(c.right());
            if (l instanceof Long a) {
                return Long.compare(a, (Long) r);
            }
            double a = ((Number) l).doubleValue();
            double b = ((Number) r).doubleValue();
            if (Double.isNaN(a) || Double.isNaN(b)) {
                return c.nanIsOne() ? 1 : -1;
            }
            return a < b ? -1 : a > b ? 1 : 0;
        }
    };

    /** Called for each array load in memory mode (the interpreter tracks which thread read what). */
    protected void loaded(Expr.Load l, Object array, int index) {
    }

    /** Java's exception and message for an integer division by zero, thrown explicitly (a hot implicit one has none). */
    private static void divisor(BinOp op, long b) {
        if (b == 0 && (op == BinOp.DIV || op == BinOp.REM)) {
            throw new ArithmeticException("/ by zero");
        }
    }

    private static Object binary(BinOp op, Object l, Object r) {
        if (l instanceof Integer a) {
            int b = (Integer) r;
            divisor(op, b);
            return switch (op) {
                case ADD -> a + b; case SUB -> a - b; case MUL -> a * b; case DIV -> a / b; case REM -> a % b;
                case AND -> a & b; case OR -> a | b; case XOR -> a ^ b; case SHL -> a << b; case SHR -> a >> b;
                case USHR -> a >>> b;
            };
        }
        if (l instanceof Long a) {
            if (op.isShift()) {
                int b = (Integer) r;
                return switch (op) {
                    case SHL -> a << b; case SHR -> a >> b; default -> a >>> b;
                };
            }
            long b = (Long) r;
            divisor(op, b);
            return switch (op) {
                case ADD -> a + b; case SUB -> a - b; case MUL -> a * b; case DIV -> a / b; case REM -> a % b;
                case AND -> a & b; case OR -> a | b; case XOR -> a ^ b; default -> throw new IllegalStateException();
            };
        }
        if (l instanceof Float a) {
            float b = (Float) r;
            return switch (op) {
                case ADD -> a + b; case SUB -> a - b; case MUL -> a * b; case DIV -> a / b; case REM -> a % b;
                default -> throw new IllegalStateException(op + " on float");
            };
        }
        double a = (Double) l;
        double b = (Double) r;
        return switch (op) {
            case ADD -> a + b; case SUB -> a - b; case MUL -> a * b; case DIV -> a / b; case REM -> a % b;
            default -> throw new IllegalStateException(op + " on double");
        };
    }

    private static boolean compare(Expr.Compare c, Object l, Object r) {
        if (l instanceof Float || l instanceof Double) {
            double a = ((Number) l).doubleValue();
            double b = ((Number) r).doubleValue();
            if (Double.isNaN(a) || Double.isNaN(b)) {
                return c.unordered();
            }
            return holds(c.cond(), Double.compare(a, b) == 0 || a == b ? 0 : a < b ? -1 : 1);
        }
        long a = ((Number) l).longValue();
        long b = ((Number) r).longValue();
        return holds(c.cond(), Long.compare(a, b));
    }

    private static boolean holds(Cond c, int cmp) {
        return switch (c) {
            case EQ -> cmp == 0; case NE -> cmp != 0; case LT -> cmp < 0; case LE -> cmp <= 0; case GT -> cmp > 0;
            case GE -> cmp >= 0;
        };
    }

    /**
     * Thrown by {@link #tripCount} for a {@code !=} loop whose index does not reach its bound without wrapping
     * around: Java's loop then runs until the index wraps around to the bound (2^32 or 2^64 steps away at most)
     * or forever. Such a loop is never run as a parallel level: the call runs on the host.
     */
    public static final class NeverReaches extends ArithmeticException {
        public NeverReaches(String message) {
            super(message);
        }
    }

    /**
     * The number of iterations of a counted loop with these bounds, as the kernel computes it. For {@code !=}
     * it is {@code (bound - lower) / step} when that is a whole number of steps in the step's direction (0 when
     * {@code lower == bound}), the count Java runs; else {@link NeverReaches}. Indices of type {@code int} arrive
     * widened, so their span cannot overflow; a {@code long} span that overflows is {@link NeverReaches} too.
     */
    public static long tripCount(long lower, Cond cond, long bound, long step) {
        return switch (cond) {
            case LT -> lower < bound ? (bound - lower + step - 1) / step : 0;
            case LE -> lower <= bound ? (bound - lower) / step + 1 : 0;
            case GT -> lower > bound ? (lower - bound - step - 1) / -step : 0;
            case GE -> lower >= bound ? (lower - bound) / -step + 1 : 0;
            case NE -> notEqualTrips(lower, bound, step);
            default -> throw new IllegalArgumentException("trip count of a " + c(cond) + " loop");
        };
    }

    private static long notEqualTrips(long lower, long bound, long step) {
        long span = bound - lower;
        boolean overflow = ((bound ^ lower) & (bound ^ span)) < 0;
        if (overflow || span % step != 0 || (span != 0 && (span < 0) != (step < 0))) {
            throw new NeverReaches("from " + lower + " in steps of " + step + " the index does not reach " + bound
                    + " without wrapping around");
        }
        long trips = span / step;
        if (trips < 0) {
            throw new ArithmeticException("the trip count " + Long.toUnsignedString(trips) + " exceeds 2^63 - 1");
        }
        return trips;
    }

    private static String c(Cond cond) {
        return cond.symbol();
    }
}
