package org.acc4j.compiler.site;

import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.ParameterNode;

/**
 * The clauses of a {@code @Kernels} method that act on each of its calls: OpenACC's {@code if} ({@code ifParam},
 * {@code ifField}) and {@code default(present)} ({@code defaultPresent}), read from the compiled method.
 *
 * @param condition      the {@code if} clause as written, for messages, e.g. {@code ifParam = "gpu"}; empty for none
 * @param ifParam        the argument index of the {@code boolean} parameter {@code ifParam} names, or -1
 * @param ifField        the name of the {@code boolean} field of the method's class {@code ifField} names, or null
 * @param ifFieldStatic  whether that field is static
 * @param defaultPresent whether every array a nest uses must already be present on the device
 * @param problem        why the {@code if} clause cannot be followed (each call is then refused), or null
 */
public record Clauses(String condition, int ifParam, String ifField, boolean ifFieldStatic, boolean defaultPresent,
                      String problem) {
    /** No clause: every call offloads what it can, and implicit data is copied as needed. */
    public static final Clauses NONE = new Clauses("", -1, null, false, false, null);
    private static final String KERNELS = "Lorg/acc4j/Kernels;";
    private static final String ASYNC = "an async clause with ifParam, ifField or defaultPresent is not supported yet";
    private static final String NAMES = " (parameter names need the class compiled with javac -g or -parameters)";

    /** Reads the {@code @Kernels} annotation of {@code method}, declared in {@code owner}. */
    public static Clauses of(ClassNode owner, MethodNode method) {
        String param = "";
        String field = "";
        boolean present = false;
        boolean async = false;
        for (AnnotationNode a : method.visibleAnnotations == null ? List.<AnnotationNode>of() : method.visibleAnnotations) {
            if (KERNELS.equals(a.desc) && a.values != null) {
                for (int i = 0; i + 1 < a.values.size(); i += 2) {
                    Object v = a.values.get(i + 1);
                    switch ((String) a.values.get(i)) {
                        case "ifParam" -> param = (String) v;
                        case "ifField" -> field = (String) v;
                        case "defaultPresent" -> present = (Boolean) v;
                        case "async" -> async |= (Integer) v != org.acc4j.Acc.ASYNC_SYNC;
                        case "asyncParam" -> async |= !((String) v).isEmpty();
                        default -> { }
                    }
                }
            }
        }
        if (param.isEmpty() && field.isEmpty()) {
            if (present && async) {
                return new Clauses("defaultPresent = true", -1, null, false, true, ASYNC);
            }
            return present ? new Clauses("", -1, null, false, true, null) : NONE;
        }
        if (async) {
            String clause = param.isEmpty() ? "ifField = \"" + field + "\"" : "ifParam = \"" + param + "\"";
            return new Clauses(clause, -1, null, false, present, ASYNC);
        }
        if (!param.isEmpty() && !field.isEmpty()) {
            return new Clauses("ifParam = \"" + param + "\", ifField = \"" + field + "\"", -1, null, false, present,
                    "set ifParam or ifField, not both");
        }
        if (!param.isEmpty()) {
            String clause = "ifParam = \"" + param + "\"";
            int index = parameterIndex(method, param);
            if (index < 0) {
                return new Clauses(clause, -1, null, false, present, "the method has no parameter named " + param + NAMES);
            }
            Type t = Type.getArgumentTypes(method.desc)[index];
            if (!t.equals(Type.BOOLEAN_TYPE)) {
                return new Clauses(clause, -1, null, false, present, "the parameter " + param + " is a "
                        + t.getClassName() + ", not a boolean");
            }
            return new Clauses(clause, index, null, false, present, null);
        }
        String clause = "ifField = \"" + field + "\"";
        boolean staticMethod = (method.access & Opcodes.ACC_STATIC) != 0;
        for (FieldNode f : owner.fields) {
            if (f.name.equals(field)) {
                boolean isStatic = (f.access & Opcodes.ACC_STATIC) != 0;
                if (!f.desc.equals("Z")) {
                    return new Clauses(clause, -1, null, false, present, "the field " + field + " is a "
                            + Type.getType(f.desc).getClassName() + ", not a boolean");
                }
                if (staticMethod && !isStatic) {
                    return new Clauses(clause, -1, null, false, present, "the field " + field
                            + " is an instance field and the method is static");
                }
                return new Clauses(clause, -1, field, isStatic, present, null);
            }
        }
        return new Clauses(clause, -1, null, false, present, "the class " + owner.name.replace('/', '.')
                + " declares no field named " + field);
    }

    /** The argument index of the parameter named {@code name}, from -parameters or the local variable table; -1. */
    public static int parameterIndex(MethodNode method, String name) {
        Type[] types = Type.getArgumentTypes(method.desc);
        if (method.parameters != null) {
            for (int i = 0; i < method.parameters.size() && i < types.length; i++) {
                ParameterNode p = method.parameters.get(i);
                if (name.equals(p.name)) {
                    return i;
                }
            }
        }
        if (method.localVariables != null) {
            int slot = (method.access & Opcodes.ACC_STATIC) != 0 ? 0 : 1;
            for (int i = 0; i < types.length; i++) {
                for (LocalVariableNode v : method.localVariables) {
                    if (v.index == slot && name.equals(v.name)) {
                        return i;
                    }
                }
                slot += types[i].getSize();
            }
        }
        return -1;
    }

    /** Whether the calls depend on an {@code if} clause. */
    public boolean conditional() {
        return ifParam >= 0 || ifField != null;
    }
}
