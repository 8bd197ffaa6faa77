package org.acc4j.compiler.frontend;

import org.acc4j.compiler.ir.ArrayRef;

/**
 * A one-dimensional array of objects of class {@code cls} (an internal name), a parameter or a field, as a value of
 * the symbolic execution: a nest reads and writes its elements' primitive fields, each as a primitive array of its
 * own ({@link ArrayRef.Gathered}); any other use of it or of its elements is refused.
 */
record ObjectArray(ArrayRef.Source source, String cls) {
    @Override
    public String toString() {
        return source.name();
    }
}
