package org.acc4j.compiler.plan;

/**
 * What the runtime knows of a two-dimensional array's rows without looking at them, for a launch's proofs: a length
 * every row has at least (the shortest row's), or -1 when it does not know (the proof then reads the rows).
 */
@FunctionalInterface
public interface RowLengths {
    int least(Object rank2);
}
