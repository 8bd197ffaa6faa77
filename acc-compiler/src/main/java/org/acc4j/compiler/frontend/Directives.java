package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.Elem;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * A method's directives as its annotations give them: the {@code @Kernels} flags and the explicit {@code @Data}
 * clauses, their names resolved to parameters and fields. This is the only place the compiler reads method
 * annotations (the loops' {@code @Loop} aside, which {@link MethodReader} reads with the loops); the passes
 * after the frontend see these values and never the class file.
 *
 * @param serial  {@code @Kernels(serial = true)}: each nest runs on one device thread
 * @param relaxed {@code @Kernels(relaxed = true)}: float scans may be regrouped
 * @param data    the explicit clauses in the order written, when every name resolves
 * @param dataError why a name of {@code @Data} does not resolve, or null; the data phase reports it
 */
public record Directives(boolean serial, boolean relaxed, List<DataClause> data, String dataError) {
    private static final String KERNELS_DESC = "Lorg/acc4j/Kernels;";
    private static final String DATA_DESC = "Lorg/acc4j/Data;";

    public Directives {
        data = List.copyOf(data);
    }

    /** The directives of method {@code mn} of class {@code cn}. */
    public static Directives read(ClassNode cn, MethodNode mn) {
        List<DataClause> data = List.of();
        String error = null;
        try {
            data = explicitData(cn, mn);
        } catch (IllegalArgumentException e) {
            error = e.getMessage();
        }
        return new Directives(flag(mn, "serial"), flag(mn, "relaxed"), data, error);
    }

    /**
     * Whether {@code mn} sets the boolean element {@code name} of its {@code @Kernels} to true: {@code serial} (each
     * nest on one device thread), {@code relaxed} (float scans may be regrouped).
     */
    public static boolean flag(MethodNode mn, String name) {
        for (List<AnnotationNode> list : Arrays.asList(mn.visibleAnnotations, mn.invisibleAnnotations)) {
            for (AnnotationNode a : list == null ? List.<AnnotationNode>of() : list) {
                if (KERNELS_DESC.equals(a.desc) && a.values != null) {
                    for (int i = 0; i + 1 < a.values.size(); i += 2) {
                        if (name.equals(a.values.get(i)) && Boolean.TRUE.equals(a.values.get(i + 1))) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /**
     * The clauses written in {@code @Data}, or none.
     *
     * @throws IllegalArgumentException for a name that resolves to no array parameter or field, saying how to fix it
     */
    public static List<DataClause> explicitData(ClassNode cn, MethodNode mn) {
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
        Type[] args = Type.getArgumentTypes(mn.desc);
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
