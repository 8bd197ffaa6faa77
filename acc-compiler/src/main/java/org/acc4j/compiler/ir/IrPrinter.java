package org.acc4j.compiler.ir;

import java.util.List;

/** Prints the structured IR as Java-like text, one statement a line, for tests and dumps. */
public final class IrPrinter {
    private IrPrinter() {
    }

    public static String print(MethodBody m) {
        StringBuilder b = new StringBuilder();
        b.append(m.displayName()).append('(');
        for (int i = 0; i < m.params().size(); i++) {
            MethodBody.Param p = m.params().get(i);
            b.append(i > 0 ? ", " : "").append(org.objectweb.asm.Type.getType(p.descriptor()).getClassName())
                    .append(' ').append(p.name());
        }
        b.append(")\n");
        print(m.body(), 1, b);
        return b.toString();
    }

    public static String print(List<Stmt> stmts) {
        StringBuilder b = new StringBuilder();
        print(stmts, 0, b);
        return b.toString();
    }

    private static void print(List<Stmt> stmts, int depth, StringBuilder b) {
        for (Stmt s : stmts) {
            String pad = "  ".repeat(depth);
            if (s instanceof Stmt.Assign a) {
                b.append(pad).append(a.var()).append(" = ").append(a.value()).append('\n');
            } else if (s instanceof Stmt.Atomic at) {
                StringBuilder call = new StringBuilder("Acc." + at.op().routine() + "(" + at.array().name()
                        + (at.row() != null ? "[" + at.row() + "]" : "") + ", " + at.index());
                at.operands().forEach(o -> call.append(", ").append(o));
                b.append(pad).append(at.result() != null ? at.result() + " = " : "").append(call).append(")\n");
            } else if (s instanceof Stmt.Store st) {
                b.append(pad).append(st.array()).append(st.row() != null ? "[" + st.row() + "]" : "").append('[').append(st.index()).append("] = ").append(st.value()).append('\n');
            } else if (s instanceof Stmt.If i) {
                b.append(pad).append("if ").append(i.cond()).append('\n');
                print(i.then(), depth + 1, b);
                if (!i.otherwise().isEmpty()) {
                    b.append(pad).append("else\n");
                    print(i.otherwise(), depth + 1, b);
                }
            } else if (s instanceof Stmt.For f) {
                b.append(pad).append("for ").append(f.index()).append(" = ").append(f.lower()).append("; ")
                        .append(f.index()).append(' ').append(f.cond().symbol()).append(' ').append(f.bound())
                        .append("; ").append(f.index()).append(f.step() >= 0 ? " += " + f.step() : " -= " + -f.step())
                        .append(f.spec().annotated() ? "  " + f.spec() : "").append('\n');
                print(f.body(), depth + 1, b);
            } else if (s instanceof Stmt.While w) {
                b.append(pad).append("while ").append(w.cond()).append('\n');
                print(w.body(), depth + 1, b);
            } else if (s instanceof Stmt.Break) {
                b.append(pad).append("break\n");
            } else if (s instanceof Stmt.Return r) {
                b.append(pad).append("return").append(r.value() != null ? " " + r.value() : "").append('\n');
            }
        }
    }
}
