package org.acc4j.compiler.ir;

import java.util.List;

/**
 * A statement of the structured loop-nest IR. Every statement carries the Java source line it came from
 * (0 when the class has no line numbers).
 */
public sealed interface Stmt {
    int line();

    /** {@code v}'s method for this kind of statement: dispatch that the compiler checks is exhaustive. */
    <R> R accept(Visitor<R> v);

    /**
     * One method per kind of statement. A back end implements it to handle every kind: a new kind of statement does
     * not compile until each visitor has a method for it.
     */
    interface Visitor<R> {
        R visit(Assign s);

        R visit(Store s);

        R visit(Atomic s);

        R visit(If s);

        R visit(For s);

        R visit(While s);

        R visit(Break s);

        R visit(Return s);
    }

    /** {@code var = value}. */
    record Assign(Var var, Expr value, int line) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }
    }

    /**
     * {@code array[index] = value}, or {@code array[row][index] = value} ({@code row} null for 1D arrays).
     *
     * @param access the access's id, unique in its method from 1, as {@link Expr.Load#access()}: facts about one
     *               access are keyed by it; equality is structural and ignores it
     */
    record Store(ArrayRef array, Expr row, Expr index, Expr value, int line, int access) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        /** The same access storing {@code v} (a pass's rewrite of the value). */
        public Store withValue(Expr v) {
            return new Store(array, row, index, v, line, access);
        }

        /** The same access with other subscripts and value (a pass's rewrite of them). */
        public Store with(Expr row, Expr index, Expr v) {
            return new Store(array, row, index, v, line, access);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Store st && array.equals(st.array) && java.util.Objects.equals(row, st.row)
                    && index.equals(st.index) && value.equals(st.value) && line == st.line;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(array, row, index, value, line);
        }
    }

    /**
     * An atomic operation on {@code array[index]} ({@code array[row][index]}, {@code row} null for 1D arrays) with
     * {@code Acc.atomic...}'s semantics: {@code operands} are the value ({@code expected, value} for CAS, none for a
     * read); {@code result}, when not null, receives the old value (for CAS 1 when it stored, else 0; an I32).
     * Atomic operations of different threads on one element do not race with each other.
     */
    record Atomic(AtomicOp op, ArrayRef array, Expr row, Expr index, List<Expr> operands, Var result, int line)
            implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        public Atomic {
            operands = List.copyOf(operands);
        }
    }

    /** {@code if (cond) then else otherwise}. */
    record If(Expr cond, List<Stmt> then, List<Stmt> otherwise, int line) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        public If {
            then = List.copyOf(then);
            otherwise = List.copyOf(otherwise);
        }
    }

    /**
     * A counted loop: {@code for (index = lower; index cond bound; index += step) body}. The bound is evaluated
     * before each iteration, as in Java; a parallel loop needs it invariant. {@code step} is a non-zero
     * constant whose sign agrees with {@code cond}; with {@link Cond#NE} it has either sign, and the loop runs
     * until the index equals the bound, wrapping around as Java's arithmetic does (a parallel level runs only when
     * the runtime has checked that the index reaches the bound without wrapping, see {@link Evaluator#tripCount}).
     *
     * <p>With a {@link Stride}, the loop is the normal form of a Java loop whose step is invariant but not a
     * constant: {@code index} counts its iterations from 0 with step 1 below {@code bound}, the trip count computed
     * from the Java loop's bounds and step, and the body's first statement sets the Java index (see {@link Stride}).
     */
    record For(Var index, Expr lower, Cond cond, Expr bound, long step, LoopSpec spec, List<Stmt> body, int line,
               Stride stride) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        public For {
            body = List.copyOf(body);
        }

        public For(Var index, Expr lower, Cond cond, Expr bound, long step, LoopSpec spec, List<Stmt> body, int line) {
            this(index, lower, cond, bound, step, spec, body, line, null);
        }

        /** The same loop with another body. */
        public For withBody(List<Stmt> newBody) {
            return new For(index, lower, cond, bound, step, spec, newBody, line, stride);
        }
    }

    /**
     * The Java loop {@code for (var = lower; var cond bound; var += step)} ({@code var -= step} for {@code >} and
     * {@code >=}) on an {@code int} index, with {@code lower}, {@code bound} and {@code step} invariant in the loop
     * and {@code step} not a constant, as its normalised {@link For} stands for it: the counter {@code k} of the
     * {@code For} runs from 0 below {@link #tripCount()}, and the body starts with {@code var = lower + k * step}
     * ({@code lower - k * step} downward).
     *
     * <p>That is Java's loop only when {@code step > 0} and the index does not wrap around before the test fails; a
     * parallel level runs only after {@link #check} has said so for the call's values (else the call runs on the
     * host, where Java's loop runs as it does), and a loop with a stride is never anything but a parallel level.
     */
    record Stride(Var var, Expr lower, Cond cond, Expr bound, Expr step) {
        public Stride {
            if (var.type() != Type.I32 || cond == Cond.NE || cond == Cond.EQ) {
                throw new IllegalArgumentException("a stride over " + var + " " + cond.symbol());
            }
        }

        /** Whether the Java index walks downward ({@code >} and {@code >=}). */
        public boolean down() {
            return cond == Cond.GT || cond == Cond.GE;
        }

        /**
         * The trip count as an {@code int} expression, for {@code step > 0}: {@code ceil((bound - lower) / step)}
         * ({@code floor(...) + 1} for {@code <=} and {@code >=}) computed in {@code long}, at most 0 when the range
         * is empty.
         */
        public Expr tripCount() {
            Expr lo = new Expr.Convert(Type.I64, lower);
            Expr hi = new Expr.Convert(Type.I64, bound);
            Expr s = new Expr.Convert(Type.I64, step);
            Expr span = down() ? new Expr.Binary(BinOp.SUB, lo, hi) : new Expr.Binary(BinOp.SUB, hi, lo);
            Expr round = cond == Cond.LT || cond == Cond.GT ? new Expr.Binary(BinOp.SUB, s, Expr.Const.i64(1)) : s;
            Expr trip = new Expr.Binary(BinOp.DIV, new Expr.Binary(BinOp.ADD, span, round), s);
            return new Expr.Convert(Type.I32, trip);
        }

        /** The Java index in iteration {@code k}: {@code lower + k * step}, or {@code lower - k * step} downward. */
        public Expr index(Expr k) {
            Expr scaled = new Expr.Binary(BinOp.MUL, k, step);
            if (!down() && lower instanceof Expr.Const c && c.bits() == 0) {
                return scaled;
            }
            return new Expr.Binary(down() ? BinOp.SUB : BinOp.ADD, lower, scaled);
        }

        /**
         * Null when the normalised loop runs Java's iterations for the values {@code ev} gives: the step is positive,
         * the index does not pass {@code Integer.MAX_VALUE} (or {@code MIN_VALUE} downward) before its test fails,
         * and there are fewer than 2^31 iterations; else the reason.
         *
         * @throws Evaluator.NotEvaluable when the bounds or the step cannot be evaluated on the host
         */
        public String check(Evaluator ev) {
            long lo = ev.evalLong(lower);
            long hi = ev.evalLong(bound);
            long s = ev.evalLong(step);
            String loop = "the loop over " + var.name() + " (" + var.name() + (down() ? " -= " : " += ") + step + ")";
            if (s <= 0) {
                return loop + " steps by " + s + ", which is not positive: Java's loop " + (s == 0 ? "never moves"
                        : "moves away from its bound") + " and ends only when the index wraps around, if ever";
            }
            long trip = Evaluator.tripCount(lo, cond, hi, down() ? -s : s);
            long end = down() ? lo - trip * s : lo + trip * s;
            if (end > Integer.MAX_VALUE || end < Integer.MIN_VALUE) {
                return loop + " from " + lo + " in steps of " + s + " passes Integer." + (down() ? "MIN" : "MAX")
                        + "_VALUE before its test against " + hi + " fails: Java's index wraps around";
            }
            if (trip > Integer.MAX_VALUE) {
                return loop + " runs " + trip + " iterations (at most 2^31 - 1 in parallel)";
            }
            return null;
        }
    }

    /**
     * A loop that is not counted, run sequentially by one thread exactly as Java runs it: {@code cond} is evaluated
     * before each iteration (the constant {@code true} for {@code while (true)} and {@code do}/{@code while} shapes,
     * whose tests are {@code if}s with a {@link Break} in the body); a {@link Break} in the body, outside any inner
     * {@code While}, leaves it. {@code while} loops, {@code for} loops with a compound test, a {@code break} or a
     * step that is not a constant become this node (a loop with an invariant step that may be a parallel level
     * becomes a {@link For} with a {@link Stride}); parallel levels are always {@link For} loops.
     */
    record While(Expr cond, List<Stmt> body, int line) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        public While {
            body = List.copyOf(body);
        }

        /** Whether the test is the constant {@code true} (the loop ends only by a {@link Break}). */
        public boolean endless() {
            return cond instanceof Expr.Const k && k.type() == Type.PRED && k.bits() != 0;
        }
    }

    /** Leaves the innermost enclosing {@link While} (never a {@link For}: a counted loop has no break). */
    record Break(int line) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }
    }

    /** The end of the method, with its value ({@code null} for a void method). */
    record Return(Expr value, int line) implements Stmt {
        @Override
        public <R> R accept(Visitor<R> v) {
            return v.visit(this);
        }

        public Return(int line) {
            this(null, line);
        }
    }
}
