package org.acc4j.compiler;

/**
 * Why a method cannot be offloaded: the class, method and source line, and the construct that stops it.
 * Formatted the same way everywhere, so that a user can search for the construct.
 */
public record Diagnostic(String owner, String method, String source, int line, String construct) {

    /** The class's simple binary name, for messages. */
    public String ownerName() {
        return owner.replace('/', '.');
    }

    @Override
    public String toString() {
        String where = source != null && line > 0 ? " (" + source + ":" + line + ")" : line > 0 ? " (line " + line + ")" : "";
        return ownerName() + "." + method + where + ": " + construct;
    }
}
