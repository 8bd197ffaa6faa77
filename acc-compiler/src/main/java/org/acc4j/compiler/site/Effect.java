package org.acc4j.compiler.site;

/**
 * What host code may do to an array between two launch sites: read or write the array an {@link Origin} names,
 * or, when {@code deep}, any array reachable from it (an object passed to a call).
 *
 * <p>The runtime turns effects into transfers: before host code reads an array a kernel changed, the array is
 * copied to the host; after host code may have written an array, it is copied to the device again before the
 * next kernel that uses it.
 */
public record Effect(boolean write, Origin origin, boolean deep) {
    @Override
    public String toString() {
        return (write ? "writes " : "reads ") + (deep ? "what is reachable from " : "") + origin;
    }
}
