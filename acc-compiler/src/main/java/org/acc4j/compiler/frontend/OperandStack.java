package org.acc4j.compiler.frontend;

import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * What the frontend does to the values of an operand stack (a {@link Frame}'s, through {@link FrameStack}) between
 * the instructions ASM's frame runs: spills of stack values to temporaries before a store would change what they
 * read (the reader's invariant), and the checks that an entry is a number or an array.
 */
final class OperandStack {
    private final MethodReader reader;

    OperandStack(MethodReader reader) {
        this.reader = reader;
    }

    void assign(Var v, Expr value, List<Object> stack, List<Stmt> out, int line) {
        spill(stack, out, line, v, false);
        out.add(new Stmt.Assign(v, value, line));
    }

    /**
     * Moves stack expressions that read {@code v} (or, with {@code memory}, any array) into temporaries, so
     * that the statement about to be emitted cannot change what they evaluate to.
     */
    void spill(List<Object> stack, List<Stmt> out, int line, Var v, boolean memory) {
        for (int k = 0; k < stack.size(); k++) {
            if (stack.get(k) instanceof MethodReader.Row r && !(r.row() instanceof Expr.Const)
                    && ((v != null && CountedLoops.mentions(r.row(), v)) || (memory && CountedLoops.readsMemory(r.row())))) {
                stack.set(k, new MethodReader.Row(r.array(), temp(r.row(), out, line)));
                continue;
            }
            if (stack.get(k) instanceof Expr e && !(e instanceof Expr.Const)
                    && ((v != null && CountedLoops.mentions(e, v)) || (memory && CountedLoops.readsMemory(e)))) {
                stack.set(k, temp(e, out, line));
            }
        }
    }

    Expr temp(Expr e, List<Stmt> out, int line) {
        Var t = new Var(reader.method.maxLocals + reader.temps, e.type(), "tmp" + reader.temps);
        reader.temps++;
        out.add(new Stmt.Assign(t, e, line));
        return new Expr.Local(t);
    }

    static boolean isWide(Object v) {
        return v instanceof Expr e && e.type().isWide();
    }

    static Object pop(List<Object> stack, int line) {
        if (stack.isEmpty()) {
            throw new Unsupported(line, "a value that flows in from another branch");
        }
        return stack.remove(stack.size() - 1);
    }

    static Expr popExpr(List<Object> stack, int line) {
        Object v = pop(stack, line);
        if (v instanceof Expr e) {
            return e;
        }
        throw new Unsupported(line, "a reference used as a number");
    }

    /** {@code v} as an array of {@code dims} dimensions (0: any). */
    static ArrayRef asArray(Object v, int line, int dims) {
        if (v instanceof ArrayRef a) {
            if (dims != 0 && a.dims() != dims) {
                throw new Unsupported(line, "an access to " + a.name() + " with the wrong number of dimensions");
            }
            return a;
        }
        throw new Unsupported(line, "an array that is not a parameter, a field or a row of one");
    }
}
