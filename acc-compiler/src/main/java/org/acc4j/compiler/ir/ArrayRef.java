package org.acc4j.compiler.ir;

/**
 * A one-dimensional primitive array the region uses, named by where the runtime finds it at a call:
 * a parameter of the method, or a field.
 */
public record ArrayRef(Source source, Type element) {

    /** Where an array or a scalar comes from when the method is called. */
    public sealed interface Source {
        /** Its name for messages and for {@code @Data} clauses. */
        String name();
    }

    /** The {@code index}-th declared parameter of the method (0-based, not counting {@code this}). */
    public record Parameter(int index, String name) implements Source {
    }

    /** A field: of {@code this} when {@code isStatic} is false, of its class otherwise. */
    public record Field(String owner, String name, String descriptor, boolean isStatic) implements Source {
    }

    public String name() {
        return source.name();
    }

    @Override
    public String toString() {
        return source.name();
    }
}
