package org.acc4j.compiler.ir;

import java.util.List;

/**
 * A method read into the structured IR: its parameters and its body as a statement list whose
 * {@link Stmt.For} nodes are the loop nests.
 */
public record MethodBody(String owner, String name, String descriptor, boolean isStatic, String sourceFile,
                         List<Param> params, List<Stmt> body) {
    public MethodBody {
        params = List.copyOf(params);
        body = List.copyOf(body);
    }

    /** A declared parameter: its 0-based index, its local slot, its name and its descriptor. */
    public record Param(int index, int slot, String name, String descriptor) {
    }

    /** The parameter held in a local slot, or null. */
    public Param paramAtSlot(int slot) {
        for (Param p : params) {
            if (p.slot == slot) {
                return p;
            }
        }
        return null;
    }

    /** "Owner.name", for messages. */
    public String displayName() {
        String simple = owner.substring(owner.lastIndexOf('/') + 1);
        return simple + "." + sourceName(name);
    }

    /** The name a method has in the source: a launch site's nest method, {@code m$L42}, is part of {@code m}. */
    public static String sourceName(String name) {
        return name.replaceFirst("\\$L\\d+(_\\d+)?$", "");
    }
}
