package org.acc4j.compiler.cudac;

/** The text of a Java source file's lines, for comments in readable kernels; {@link #NONE} when it was not found. */
@FunctionalInterface
public interface SourceText {
    /** No source: comments name the file and line only. */
    SourceText NONE = line -> null;

    /** The text of 1-based line {@code line}, without its line break, or null when unknown. */
    String line(int line);
}
