package org.acc4j.compiler.jvm;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/** What a region's statements use: its arrays and primitive fields, its variables, in first-use order. */
final class RegionUses {
    private RegionUses() {
    }

    static void collect(List<Stmt> stmts, Set<ArrayRef> arrays, Map<ArrayRef.Field, Expr.FieldValue> fields) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                collect(a.value(), arrays, fields);
            } else if (s instanceof Stmt.Store st) {
                arrays.add(st.array());
                collect(st.row(), arrays, fields);
                collect(st.index(), arrays, fields);
                collect(st.value(), arrays, fields);
            } else if (s instanceof Stmt.Atomic at) {
                arrays.add(at.array());
                collect(at.row(), arrays, fields);
                collect(at.index(), arrays, fields);
                at.operands().forEach(o -> collect(o, arrays, fields));
            } else if (s instanceof Stmt.If i) {
                collect(i.cond(), arrays, fields);
                collect(i.then(), arrays, fields);
                collect(i.otherwise(), arrays, fields);
            } else if (s instanceof Stmt.While w) {
                collect(w.cond(), arrays, fields);
                collect(w.body(), arrays, fields);
            } else if (s instanceof Stmt.For f) {
                collect(f.lower(), arrays, fields);
                collect(f.bound(), arrays, fields);
                collect(f.body(), arrays, fields);
            } else if (s instanceof Stmt.Return r && r.value() != null) {
                collect(r.value(), arrays, fields);
            }
        }
    }

    static void collect(Expr e, Set<ArrayRef> arrays, Map<ArrayRef.Field, Expr.FieldValue> fields) {
        if (e == null) {
            return;
        }
        if (e instanceof Expr.FieldValue f) {
            fields.putIfAbsent(f.field(), f);
        } else if (e instanceof Expr.Load l) {
            arrays.add(l.array());
            collect(l.row(), arrays, fields);
            collect(l.index(), arrays, fields);
        } else if (e instanceof Expr.Length l) {
            arrays.add(l.array());
            collect(l.row(), arrays, fields);
        } else if (e instanceof Expr.Call c) {
            c.args().forEach(a -> collect(a, arrays, fields));
        } else if (e instanceof Expr.Binary b) {
            collect(b.left(), arrays, fields);
            collect(b.right(), arrays, fields);
        } else if (e instanceof Expr.Unary u) {
            collect(u.operand(), arrays, fields);
        } else if (e instanceof Expr.Convert c) {
            collect(c.operand(), arrays, fields);
        } else if (e instanceof Expr.Compare c) {
            collect(c.left(), arrays, fields);
            collect(c.right(), arrays, fields);
        } else if (e instanceof Expr.Select s) {
            collect(s.cond(), arrays, fields);
            collect(s.ifTrue(), arrays, fields);
            collect(s.ifFalse(), arrays, fields);
        } else if (e instanceof Expr.Cmp3 c) {
            collect(c.left(), arrays, fields);
            collect(c.right(), arrays, fields);
        }
    }

    static void collectVars(List<Stmt> stmts, Set<Var> vars) {
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Assign a) {
                vars.add(a.var());
                collectVars(a.value(), vars);
            } else if (s instanceof Stmt.Store st) {
                collectVars(st.row(), vars);
                collectVars(st.index(), vars);
                collectVars(st.value(), vars);
            } else if (s instanceof Stmt.Atomic at) {
                if (at.result() != null) {
                    vars.add(at.result());
                }
                collectVars(at.row(), vars);
                collectVars(at.index(), vars);
                at.operands().forEach(o -> collectVars(o, vars));
            } else if (s instanceof Stmt.If i) {
                collectVars(i.cond(), vars);
                collectVars(i.then(), vars);
                collectVars(i.otherwise(), vars);
            } else if (s instanceof Stmt.While w) {
                collectVars(w.cond(), vars);
                collectVars(w.body(), vars);
            } else if (s instanceof Stmt.For f) {
                vars.add(f.index());
                if (f.stride() != null) {
                    vars.add(f.stride().var());
                }
                collectVars(f.lower(), vars);
                collectVars(f.bound(), vars);
                collectVars(f.body(), vars);
            }
        }
    }

    static void collectVars(Expr e, Set<Var> vars) {
        if (e == null) {
            return;
        }
        if (e instanceof Expr.Local l) {
            vars.add(l.var());
        } else if (e instanceof Expr.Load l) {
            collectVars(l.row(), vars);
            collectVars(l.index(), vars);
        } else if (e instanceof Expr.Length l) {
            collectVars(l.row(), vars);
        } else if (e instanceof Expr.Call c) {
            c.args().forEach(a -> collectVars(a, vars));
        } else if (e instanceof Expr.Binary b) {
            collectVars(b.left(), vars);
            collectVars(b.right(), vars);
        } else if (e instanceof Expr.Unary u) {
            collectVars(u.operand(), vars);
        } else if (e instanceof Expr.Convert c) {
            collectVars(c.operand(), vars);
        } else if (e instanceof Expr.Compare c) {
            collectVars(c.left(), vars);
            collectVars(c.right(), vars);
        } else if (e instanceof Expr.Select s) {
            collectVars(s.cond(), vars);
            collectVars(s.ifTrue(), vars);
            collectVars(s.ifFalse(), vars);
        } else if (e instanceof Expr.Cmp3 c) {
            collectVars(c.left(), vars);
            collectVars(c.right(), vars);
        }
    }
}
