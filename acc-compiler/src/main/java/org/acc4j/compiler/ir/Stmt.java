package org.acc4j.compiler.ir;

import java.util.List;

/**
 * A statement of the structured loop-nest IR. Every statement carries the Java source line it came from
 * (0 when the class has no line numbers).
 */
public sealed interface Stmt {
    int line();

    /** {@code var = value}. */
    record Assign(Var var, Expr value, int line) implements Stmt {
    }

    /** {@code array[index] = value}, or {@code array[row][index] = value} ({@code row} null for 1D arrays). */
    record Store(ArrayRef array, Expr row, Expr index, Expr value, int line) implements Stmt {
        public Store(ArrayRef array, Expr index, Expr value, int line) {
            this(array, null, index, value, line);
        }
    }

    /** {@code if (cond) then else otherwise}. */
    record If(Expr cond, List<Stmt> then, List<Stmt> otherwise, int line) implements Stmt {
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
     */
    record For(Var index, Expr lower, Cond cond, Expr bound, long step, LoopSpec spec, List<Stmt> body, int line)
            implements Stmt {
        public For {
            body = List.copyOf(body);
        }

        /** The same loop with another body. */
        public For withBody(List<Stmt> newBody) {
            return new For(index, lower, cond, bound, step, spec, newBody, line);
        }
    }

    /**
     * A loop that is not counted, run sequentially by one thread exactly as Java runs it: {@code cond} is evaluated
     * before each iteration (the constant {@code true} for {@code while (true)} and {@code do}/{@code while} shapes,
     * whose tests are {@code if}s with a {@link Break} in the body); a {@link Break} in the body, outside any inner
     * {@code While}, leaves it. {@code while} loops, {@code for} loops with a compound test, a {@code break} or a
     * step that is not a constant become this node; parallel levels are always {@link For} loops.
     */
    record While(Expr cond, List<Stmt> body, int line) implements Stmt {
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
    }

    /** The end of the method, with its value ({@code null} for a void method). */
    record Return(Expr value, int line) implements Stmt {
        public Return(int line) {
            this(null, line);
        }
    }
}
