package org.acc4j.compiler;

import java.util.List;

/**
 * Thrown inside the compiler when a method uses a construct it cannot offload; the facade turns it into a
 * {@link Diagnostic} and the method runs on the host. It names the first construct found and, where the compiler
 * could go on looking, every other one ({@link #obstacles()}).
 */
public final class Unsupported extends RuntimeException {
    private final int line;
    private final List<Diagnostic.Obstacle> obstacles;

    public Unsupported(int line, String construct) {
        super(construct, null, false, false);
        this.line = line;
        this.obstacles = List.of(new Diagnostic.Obstacle(line, construct));
    }

    /** Every obstacle found, the first one first (not empty). */
    public Unsupported(List<Diagnostic.Obstacle> obstacles) {
        super(obstacles.get(0).construct(), null, false, false);
        this.line = obstacles.get(0).line();
        this.obstacles = List.copyOf(obstacles);
    }

    public int line() {
        return line;
    }

    public String construct() {
        return getMessage();
    }

    /** Every obstacle found, the first one ({@link #line()}, {@link #construct()}) first. */
    public List<Diagnostic.Obstacle> obstacles() {
        return obstacles;
    }
}
