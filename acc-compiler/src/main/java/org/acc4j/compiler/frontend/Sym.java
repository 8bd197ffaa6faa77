package org.acc4j.compiler.frontend;

import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.Expr;
import org.objectweb.asm.tree.analysis.Value;

/**
 * What one operand-stack entry or local holds while the frontend reads a block: an IR {@link Expr}, an
 * {@link ArrayRef array}, a {@link MethodReader.Row row} of a two-dimensional array or {@code this}, with its size in
 * JVM slots (two for a {@code long} or {@code double}). Values are immutable; {@link #EMPTY} stands for a local the
 * reader does not track (it reads locals by slot, as IR variables).
 *
 * @param value the expression, array, row or {@code this}; null for {@link #EMPTY}
 * @param size  1 or 2
 */
record Sym(Object value, int size) implements Value {
    /** A local slot whose content the reader does not track, or the second half of a two-slot local. */
    static final Sym EMPTY = new Sym(null, 1);

    /** {@code value} with the size its type takes on the JVM's stack. */
    static Sym of(Object value) {
        return new Sym(value, value instanceof Expr e && e.type().isWide() ? 2 : 1);
    }

    @Override
    public int getSize() {
        return size;
    }
}
