package org.acc4j.compiler.pass;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.frontend.Directives;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;

/**
 * The data clauses of a region: the explicit ones of {@code @Data}, with names resolved to parameters and
 * fields by the frontend ({@link Directives}), and implicit ones for every other array the kernels use. Implicit
 * clauses follow the UseSet/DefSet rule of Seyong Lee, Seung-Jai Min and Rudolf Eigenmann, <i>OpenMP to GPGPU: A
 * Compiler Framework for Automatic Translation and Optimization</i>: read only is {@code copyin}; written is {@code copy}, or {@code copyout}
 * when the array is never read and one unit-stride store per iteration may cover it (checked at launch).
 */
public final class DataClauses {
    private DataClauses() {
    }

    /**
     * The method's data clauses: the explicit ones of {@code directives} in order, then an implicit one for each
     * other array the regions use, in order of first use.
     *
     * @throws IllegalArgumentException when a name of {@code @Data} does not resolve (the frontend's message)
     */
    public static List<DataClause> resolve(Directives directives, List<Region> regions) {
        if (directives.dataError() != null) {
            throw new IllegalArgumentException(directives.dataError());
        }
        List<DataClause> clauses = new ArrayList<>(directives.data());
        Set<ArrayRef> named = new HashSet<>();
        for (DataClause c : clauses) {
            named.add(c.array());
        }
        Map<ArrayRef, boolean[]> uses = new LinkedHashMap<>();
        for (Region r : regions) {
            List<Stmt> all = new ArrayList<>(r.prologue());
            all.add(r.loop());
            Dataflow.arrayUses(all).forEach((a, u) -> {
                boolean[] acc = uses.computeIfAbsent(a, k -> new boolean[2]);
                acc[0] |= u[0];
                acc[1] |= u[1];
            });
        }
        for (Map.Entry<ArrayRef, boolean[]> e : uses.entrySet()) {
            ArrayRef a = e.getKey();
            if (named.contains(a) || a.source() instanceof ArrayRef.ColourOrder) {
                // a colour order is made and kept present by the runtime
                continue;
            }
            if (a.source() instanceof ArrayRef.Gathered g && g.field() == null) {
                // the length of an array of objects: the kernel is given the number, never the elements
                continue;
            }
            boolean read = e.getValue()[0];
            boolean written = e.getValue()[1];
            if (!written) {
                clauses.add(new DataClause(a, DataClause.Kind.COPYIN, false, null));
            } else if (read) {
                clauses.add(new DataClause(a, DataClause.Kind.COPY, false, null));
            } else {
                DataClause.Coverage coverage = coverage(a, regions);
                clauses.add(new DataClause(a, coverage != null ? DataClause.Kind.COPYOUT : DataClause.Kind.COPY,
                        false, coverage));
            }
        }
        return clauses;
    }

    /** The only store to {@code a}: unconditional, once per iteration of a unit-step loop, at {@code i + c}. */
    private static DataClause.Coverage coverage(ArrayRef a, List<Region> regions) {
        DataClause.Coverage found = null;
        int stores = 0;
        for (Region r : regions) {
            stores += countStores(r.loop().body(), a);
            Stmt.For loop = r.loop();
            for (Stmt s : loop.body()) {
                if (s instanceof Stmt.Store st && st.array().equals(a) && st.row() == null && loop.step() == 1) {
                    Expr offset = Affine.offsetOfUnit(st.index(), loop.index());
                    Set<Var> variant = new HashSet<>();
                    Dataflow.assigned(loop.body(), variant);
                    if (offset != null && Affine.restInvariant(offset, loop.index(), variant)) {
                        found = new DataClause.Coverage(r.ordinal(), offset);
                    }
                } else if (s instanceof Stmt.For inner && a.dims() == 2) {
                    DataClause.Coverage rows = rectangle(r, inner, a);
                    found = rows != null ? rows : found;
                }
            }
        }
        return stores == 1 ? found : null;
    }

    /**
     * The rectangle a {@code T[][]} is written over when {@code inner}, a loop in the body of {@code r}'s loop, stores
     * {@code a[i + rowOffset][j + offset]} once per iteration (at the top of its body, so on every iteration), both
     * loops counting up by one with no hidden stride, and neither offset nor the inner bounds change with the outer
     * loop; else null.
     */
    private static DataClause.Coverage rectangle(Region r, Stmt.For inner, ArrayRef a) {
        Stmt.For loop = r.loop();
        if (loop.step() != 1 || inner.step() != 1 || loop.stride() != null || inner.stride() != null
                || !ascending(loop.cond()) || !ascending(inner.cond())) {
            return null;
        }
        Set<Var> variant = new HashSet<>();
        Dataflow.assigned(loop.body(), variant);
        variant.add(loop.index());
        for (Stmt s : inner.body()) {
            if (s instanceof Stmt.Store st && st.array().equals(a) && st.row() != null) {
                Expr rowOffset = Affine.offsetOfUnit(st.row(), loop.index());
                Expr offset = Affine.offsetOfUnit(st.index(), inner.index());
                if (rowOffset == null || offset == null || !Affine.restInvariant(rowOffset, loop.index(), variant)
                        || !Affine.restInvariant(offset, null, variant) || !Affine.restInvariant(inner.lower(), null,
                        variant) || !Affine.restInvariant(inner.bound(), null, variant)) {
                    return null;
                }
                return new DataClause.Coverage(r.ordinal(), rowOffset,
                        new DataClause.Columns(inner.lower(), inner.cond(), inner.bound(), offset));
            }
        }
        return null;
    }

    private static boolean ascending(org.acc4j.compiler.ir.Cond c) {
        return c == org.acc4j.compiler.ir.Cond.LT || c == org.acc4j.compiler.ir.Cond.LE;
    }

    private static int countStores(List<Stmt> stmts, ArrayRef a) {
        int n = 0;
        for (Stmt s : stmts) {
            if (s instanceof Stmt.Store st && st.array().equals(a)) {
                n++;
            } else if (s instanceof Stmt.If i) {
                n += countStores(i.then(), a) + countStores(i.otherwise(), a);
            } else if (s instanceof Stmt.For f) {
                n += countStores(f.body(), a);
            } else if (s instanceof Stmt.While w) {
                n += countStores(w.body(), a);
            }
        }
        return n;
    }
}
