package org.acc4j.compiler.frontend;

import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.Opcodes;

/**
 * The symbolic operand stack of {@link MethodReader}: expressions pushed and popped, the stack shuffles of
 * {@code dup}, {@code dup_x1}, {@code dup2_x2} and the like on one- and two-slot values, and spills of stack values
 * to temporaries before a store would change what they read (the reader's invariant).
 */
final class OperandStack {
    private final MethodReader reader;

    OperandStack(MethodReader reader) {
        this.reader = reader;
    }

    static void requireEmpty(List<Object> stack, int line) {
        if (!stack.isEmpty()) {
            throw new Unsupported(line, "a value carried across a branch (a ?: expression or a boolean value)");
        }
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

    void shuffle(int op, List<Object> stack, List<Stmt> out, int line) {
        // values duplicated on the stack must stay the same value: keep only cheap, side-effect-free leaves
        switch (op) {
            case Opcodes.SWAP -> {
                Object a = pop(stack, line);
                Object b = pop(stack, line);
                stack.add(a);
                stack.add(b);
            }
            case Opcodes.DUP -> {
                Object a = stable(pop(stack, line), out, line);
                stack.add(a);
                stack.add(a);
            }
            case Opcodes.DUP_X1 -> {
                Object a = stable(pop(stack, line), out, line);
                Object b = pop(stack, line);
                stack.add(a);
                stack.add(b);
                stack.add(a);
            }
            case Opcodes.DUP_X2 -> {
                Object a = stable(pop(stack, line), out, line);
                Object b = pop(stack, line);
                if (isWide(b)) {
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object c = pop(stack, line);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
            case Opcodes.DUP2 -> {
                Object a = stable(pop(stack, line), out, line);
                if (isWide(a)) {
                    stack.add(a);
                    stack.add(a);
                } else {
                    Object b = stable(pop(stack, line), out, line);
                    stack.add(b);
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                }
            }
            case Opcodes.DUP2_X1 -> {
                Object a = stable(pop(stack, line), out, line);
                if (isWide(a)) {
                    Object b = pop(stack, line);
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object b = stable(pop(stack, line), out, line);
                    Object c = pop(stack, line);
                    stack.add(b);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
            default -> {
                // DUP2_X2: only the common form (wide value over a wide value, or over two narrow ones)
                Object a = stable(pop(stack, line), out, line);
                if (!isWide(a)) {
                    throw new Unsupported(line, "the instruction dup2_x2 on narrow values");
                }
                Object b = pop(stack, line);
                if (isWide(b)) {
                    stack.add(a);
                    stack.add(b);
                    stack.add(a);
                } else {
                    Object c = pop(stack, line);
                    stack.add(a);
                    stack.add(c);
                    stack.add(b);
                    stack.add(a);
                }
            }
        }
    }

    Object stable(Object v, List<Stmt> out, int line) {
        if (v instanceof Expr e && !(e instanceof Expr.Const) && !(e instanceof Expr.Local)
                && !(e instanceof Expr.FieldValue)) {
            return temp(e, out, line);
        }
        return v;
    }

    static boolean isWide(Object v) {
        return v instanceof Expr e && e.type().isWide();
    }

    void binary(BinOp op, List<Object> stack, int line) {
        Expr r = popExpr(stack, line);
        Expr l = popExpr(stack, line);
        stack.add(new Expr.Binary(op, l, r));
    }

    void convert(Type to, List<Object> stack, int line) {
        stack.add(new Expr.Convert(to, popExpr(stack, line)));
    }

    void cmp3(List<Object> stack, int line, boolean nanIsOne) {
        Expr r = popExpr(stack, line);
        Expr l = popExpr(stack, line);
        stack.add(new Expr.Cmp3(l, r, nanIsOne));
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
