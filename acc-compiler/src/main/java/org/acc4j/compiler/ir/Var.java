package org.acc4j.compiler.ir;

/**
 * A Java local variable of one type. javac may reuse a slot for variables of other types in other scopes, so
 * a variable is its slot and its type; {@code name} is for messages and readable PTX only.
 */
public record Var(int slot, Type type, String name) {
    @Override
    public boolean equals(Object o) {
        return o instanceof Var v && v.slot == slot && v.type == type;
    }

    @Override
    public int hashCode() {
        return slot * 31 + type.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
