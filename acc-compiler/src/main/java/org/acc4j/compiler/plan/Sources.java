package org.acc4j.compiler.plan;

import org.acc4j.compiler.ir.ArrayRef;

/** The plans' forms of the compiler's sources. */
final class Sources {
    private Sources() {
    }

    /** Where a call finds the value of {@code s}; a private array has no such place (it never leaves the kernel). */
    static ValueSource of(ArrayRef.Source s) {
        if (s instanceof ArrayRef.Parameter p) {
            return new ValueSource.Argument(p.index(), p.name());
        }
        if (s instanceof ArrayRef.Field f) {
            return new ValueSource.Field(f.owner(), f.name(), f.isStatic());
        }
        throw new IllegalStateException("the private array " + s.name() + " is not read at a call");
    }
}
