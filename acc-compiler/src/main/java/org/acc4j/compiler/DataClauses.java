package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.pass.Affine;
import org.acc4j.compiler.pass.Dataflow;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The data clauses of a region: the explicit ones of {@code @Data}, with names resolved to parameters and
 * fields, and implicit ones for every other array the kernels use. Implicit clauses follow the UseSet/DefSet
 * rule of the OpenMP-to-GPGPU work: read only is {@code copyin}; written is {@code copy}, or {@code copyout}
 * when the array is never read and one unit-stride store per iteration may cover it (checked at launch).
 */
final class DataClauses {
    private static final String DATA_DESC = "Lorg/acc4j/Data;";

    private DataClauses() {
    }

    static List<DataClause> resolve(ClassNode cn, MethodNode mn, org.acc4j.compiler.ir.MethodBody body,
                                    List<Region> regions) {
        List<DataClause> clauses = new ArrayList<>(explicit(cn, mn));
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
            if (named.contains(a)) {
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
                }
            }
        }
        return stores == 1 ? found : null;
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

    /** The clauses written in {@code @Data}, or none; an unresolvable name is an error that says how to fix it. */
    static List<DataClause> explicit(ClassNode cn, MethodNode mn) {
        List<DataClause> out = new ArrayList<>();
        if (mn.visibleAnnotations == null) {
            return out;
        }
        for (AnnotationNode a : mn.visibleAnnotations) {
            if (!DATA_DESC.equals(a.desc) || a.values == null) {
                continue;
            }
            for (int i = 0; i + 1 < a.values.size(); i += 2) {
                DataClause.Kind kind = DataClause.Kind.valueOf(((String) a.values.get(i)).toUpperCase());
                @SuppressWarnings("unchecked")
                List<String> names = (List<String>) a.values.get(i + 1);
                for (String name : names) {
                    out.add(new DataClause(resolveName(cn, mn, name), kind, true, null));
                }
            }
        }
        return out;
    }

    private static ArrayRef resolveName(ClassNode cn, MethodNode mn, String name) {
        boolean isStatic = (mn.access & Opcodes.ACC_STATIC) != 0;
        org.objectweb.asm.Type[] args = org.objectweb.asm.Type.getArgumentTypes(mn.desc);
        List<String> names = new ArrayList<>();
        int slot = isStatic ? 0 : 1;
        for (int i = 0; i < args.length; i++) {
            String pname = parameterName(mn, i, slot);
            names.add(pname);
            if (name.equals(pname)) {
                Elem element = Elem.ofArray(args[i].getDescriptor());
                if (element == null) {
                    throw new IllegalArgumentException(where(cn, mn) + ": @Data names '" + name
                            + "', a parameter of type " + args[i].getClassName()
                            + "; only primitive arrays of one or two dimensions are supported");
                }
                return new ArrayRef(new ArrayRef.Parameter(i, pname), element, Elem.arrayDims(args[i].getDescriptor()));
            }
            slot += args[i].getSize();
        }
        for (FieldNode f : cn.fields) {
            if (f.name.equals(name)) {
                Elem element = Elem.ofArray(f.desc);
                boolean fieldStatic = (f.access & Opcodes.ACC_STATIC) != 0;
                if (element == null || (!fieldStatic && isStatic)) {
                    throw new IllegalArgumentException(where(cn, mn) + ": @Data names the field '" + name
                            + "', which is not a primitive array field of one or two dimensions reachable from this"
                            + " method");
                }
                return new ArrayRef(new ArrayRef.Field(cn.name, f.name, f.desc, fieldStatic), element,
                        Elem.arrayDims(f.desc));
            }
        }
        boolean anonymous = names.stream().allMatch(n -> n.matches("arg\\d+"));
        throw new IllegalArgumentException(where(cn, mn) + ": @Data names '" + name
                + "', which is neither a parameter nor a field of " + cn.name.replace('/', '.')
                + "; the parameters are " + names
                + (anonymous ? " because the class has no parameter names: compile it with -parameters (or -g)" : ""));
    }

    private static String parameterName(MethodNode mn, int index, int slot) {
        if (mn.parameters != null && index < mn.parameters.size() && mn.parameters.get(index).name != null) {
            return mn.parameters.get(index).name;
        }
        if (mn.localVariables != null) {
            for (LocalVariableNode lv : mn.localVariables) {
                if (lv.index == slot && mn.instructions.indexOf(lv.start) <= 1) {
                    return lv.name;
                }
            }
        }
        return "arg" + index;
    }

    private static String where(ClassNode cn, MethodNode mn) {
        return "acc4j: " + cn.name.replace('/', '.') + "." + mn.name;
    }
}
