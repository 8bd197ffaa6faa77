package org.acc4j.compiler;

/**
 * Thrown inside the compiler when a method uses a construct it cannot offload; the facade turns it into a
 * {@link Diagnostic} and the method runs on the host.
 */
public final class Unsupported extends RuntimeException {
    private final int line;

    public Unsupported(int line, String construct) {
        super(construct, null, false, false);
        this.line = line;
    }

    public int line() {
        return line;
    }

    public String construct() {
        return getMessage();
    }
}
