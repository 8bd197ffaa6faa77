package org.acc4j.compiler.frontend;

import org.acc4j.compiler.ir.Expr;

/** The element {@code array[index]} of an array of objects, as a value on the stack or in a local. */
record ObjectElement(ObjectArray array, Expr index) {
    @Override
    public String toString() {
        return "an element of " + array.source().name();
    }
}
