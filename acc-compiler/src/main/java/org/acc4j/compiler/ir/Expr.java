package org.acc4j.compiler.ir;

/**
 * A pure scalar expression. Values are immutable trees; sharing a subtree is allowed. Array loads read
 * memory, so the front end never moves a load across a store (it spills to a temporary first).
 */
public sealed interface Expr {
    /** The access id of a {@link Load} or {@link Stmt.Store} made as a pattern, which never stands in the IR. */
    int NO_ACCESS = 0;

    Type type();

    /** {@code v}'s method for this kind of expression: dispatch that the compiler checks is exhaustive. */
    <R> R accept(Visitor<R> v);

    /**
     * One method per kind of expression. A back end implements it to handle every kind: a new kind of expression
     * does not compile until each visitor has a method for it.
     */
    interface Visitor<R> {
        R visit(Const e);

        R visit(Local e);

        R visit(FieldValue e);

        R visit(Load e);

        R visit(Length e);

        R visit(Call e);

        R visit(Binary e);

        R visit(Unary e);

        R visit(Convert e);

        R visit(Compare e);

        R visit(Select e);

        R visit(Cmp3 e);
    }

    /** A constant; floating-point constants hold their IEEE bits, predicates 0 or 1. */
    record Const(Type type, long bits) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public static Const i32(int v) { return new Const(Type.I32, v); }
        public static Const i64(long v) { return new Const(Type.I64, v); }
        public static Const f32(float v) { return new Const(Type.F32, Float.floatToRawIntBits(v) & 0xffffffffL); }
        public static Const f64(double v) { return new Const(Type.F64, Double.doubleToRawLongBits(v)); }

        @Override
        public String toString() {
            return switch (type) {
                case I32 -> Integer.toString((int) bits);
                case I64 -> bits + "L";
                case F32 -> Float.intBitsToFloat((int) bits) + "f";
                case F64 -> Double.toString(Double.longBitsToDouble(bits));
                case PRED -> bits != 0 ? "true" : "false";
            };
        }
    }

    /** The current value of a local variable (a parameter when its slot is one and it is never assigned). */
    record Local(Var var) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return var.type(); }
        @Override public String toString() { return var.name(); }
    }

    /** A primitive field's value, read once at the call (the region must not write it). */
    record FieldValue(ArrayRef.Field field, Type type) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        @Override public String toString() { return (field.isStatic() ? "" : "this.") + field.name(); }
    }

    /**
     * {@code array[index]}, or {@code array[row][index]} for a two-dimensional array ({@code row} null otherwise).
     *
     * <p>{@code access} names the access in its method ({@link #access()}): facts about one access, such as a bounds
     * proof, are keyed by it. Equality is structural and ignores it: two reads of one element are equal values.
     *
     * @param access the access's id, unique in its method from 1 ({@link #NO_ACCESS} for a pattern a pass compares
     *               with, which never stands in the IR)
     */
    record Load(ArrayRef array, Expr row, Expr index, int access) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Load(ArrayRef array, Expr index) {
            this(array, null, index, NO_ACCESS);
        }

        /** A pattern to compare with: it has no access id. */
        public Load(ArrayRef array, Expr row, Expr index) {
            this(array, row, index, NO_ACCESS);
        }

        /** The same access with other subscripts (a pass's rewrite of them). */
        public Load withSubscripts(Expr row, Expr index) {
            return new Load(array, row, index, access);
        }

        @Override public boolean equals(Object o) {
            return o instanceof Load l && array.equals(l.array) && java.util.Objects.equals(row, l.row)
                    && index.equals(l.index);
        }

        @Override public int hashCode() { return java.util.Objects.hash(array, row, index); }

        public Type type() { return array.element(); }
        @Override public String toString() {
            return array.name() + (row != null ? "[" + row + "]" : "") + "[" + index + "]";
        }
    }

    /** {@code array.length}, or {@code array[row].length} ({@code row} null for the array itself). */
    record Length(ArrayRef array, Expr row) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Length(ArrayRef array) {
            this(array, null);
        }

        public Type type() { return Type.I32; }
        @Override public String toString() {
            return array.name() + (row != null ? "[" + row + "]" : "") + ".length";
        }
    }

    /** A call of a {@link MathFn} with Java's semantics; the operands have the function's type. */
    record Call(MathFn fn, Type type, java.util.List<Expr> args) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Call {
            args = java.util.List.copyOf(args);
        }

        @Override public String toString() {
            StringBuilder b = new StringBuilder("Math.").append(fn.javaName()).append('(');
            for (int k = 0; k < args.size(); k++) {
                b.append(k > 0 ? ", " : "").append(args.get(k));
            }
            return b.append(')').toString();
        }
    }

    /** A binary operation with Java's semantics; shifts take an I32 count and the left operand's type. */
    record Binary(BinOp op, Expr left, Expr right) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return left.type(); }
        @Override public String toString() { return "(" + left + " " + op.symbol() + " " + right + ")"; }
    }

    /** A unary operation with Java's semantics. */
    record Unary(UnOp op, Expr operand) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return op == UnOp.NOT ? Type.PRED : operand.type(); }
        @Override public String toString() { return op.symbol() + operand; }
    }

    /** A primitive conversion with Java's semantics (i2l, d2i, ...). */
    record Convert(Type type, Expr operand) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        @Override public String toString() { return "(" + type.javaName() + ") " + operand; }
    }

    /**
     * A comparison. For floating-point operands {@code unordered} says whether a NaN operand makes it true
     * (javac's fcmpg/fcmpl choice decides this).
     */
    record Compare(Cond cond, Expr left, Expr right, boolean unordered) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return Type.PRED; }

        /** The logical negation: the opposite condition with the opposite NaN behaviour. */
        public Compare negate() {
            return new Compare(cond.negate(), left, right, left.type().isFloat() && !unordered);
        }

        @Override public String toString() {
            return "(" + left + " " + cond.symbol() + (unordered ? "u " : " ") + right + ")";
        }
    }

    /** {@code cond ? ifTrue : ifFalse}. */
    record Select(Expr cond, Expr ifTrue, Expr ifFalse) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return ifTrue.type(); }
        @Override public String toString() { return "(" + cond + " ? " + ifTrue + " : " + ifFalse + ")"; }
    }

    /** The three-way result of lcmp, fcmpl/g or dcmpl/g (-1, 0, 1); NaN gives 1 when {@code nanIsOne}. */
    record Cmp3(Expr left, Expr right, boolean nanIsOne) implements Expr {
        @Override public <R> R accept(Visitor<R> v) { return v.visit(this); }
        public Type type() { return Type.I32; }
        @Override public String toString() { return "cmp(" + left + ", " + right + ")"; }
    }
}
