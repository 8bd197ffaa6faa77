package org.acc4j.compiler;

import java.util.List;

/**
 * Why a method cannot be offloaded: the class, method and source line, and the construct that stops it.
 * Formatted the same way everywhere, so that a user can search for the construct. {@link #obstacles()} lists every
 * construct that stops it (the first one is {@code line} and {@code construct}), so that all can be fixed at once.
 */
public record Diagnostic(String owner, String method, String source, int line, String construct,
                         List<Obstacle> obstacles) {

    /** One construct that keeps the method on the host, and its source line (0 when unknown). */
    public record Obstacle(int line, String construct) {
    }

    public Diagnostic {
        obstacles = obstacles == null || obstacles.isEmpty() ? List.of(new Obstacle(line, construct))
                : List.copyOf(obstacles);
    }

    /** A diagnostic with one obstacle. */
    public Diagnostic(String owner, String method, String source, int line, String construct) {
        this(owner, method, source, line, construct, List.of());
    }

    /** The class's simple binary name, for messages. */
    public String ownerName() {
        return owner.replace('/', '.');
    }

    @Override
    public String toString() {
        String where = source != null && line > 0 ? " (" + source + ":" + line + ")" : line > 0 ? " (line " + line + ")" : "";
        StringBuilder b = new StringBuilder(ownerName() + "." + method + where + ": " + construct);
        if (obstacles.size() > 1) {
            b.append(" (and ").append(obstacles.size() - 1).append(" more: ");
            for (int k = 1; k < obstacles.size(); k++) {
                Obstacle o = obstacles.get(k);
                b.append(k > 1 ? "; " : "").append(o.line() > 0 ? (source != null ? source + ":" : "line ") + o.line()
                        + ": " : "").append(o.construct());
            }
            b.append(')');
        }
        return b.toString();
    }
}
