package org.acc4j.compiler.frontend;

import java.util.AbstractList;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * The operand stack of a {@link Frame} as a list of the values its entries hold, bottom first: the reader's view for
 * what it does between instructions (a block's entry values, the values carried to the next block, spills to
 * temporaries). Entries are added and removed at the top only, as the JVM's are.
 */
final class FrameStack extends AbstractList<Object> {
    private final Frame<Sym> frame;

    FrameStack(Frame<Sym> frame) {
        this.frame = frame;
    }

    @Override
    public Object get(int index) {
        return frame.getStack(index).value();
    }

    @Override
    public Object set(int index, Object value) {
        Object old = get(index);
        frame.setStack(index, Sym.of(value));
        return old;
    }

    @Override
    public int size() {
        return frame.getStackSize();
    }

    @Override
    public void add(int index, Object value) {
        if (index != size()) {
            throw new UnsupportedOperationException("only the top of an operand stack changes");
        }
        frame.push(Sym.of(value));
    }

    @Override
    public Object remove(int index) {
        if (index != size() - 1) {
            throw new UnsupportedOperationException("only the top of an operand stack changes");
        }
        return frame.pop().value();
    }

    @Override
    public void clear() {
        frame.clearStack();
    }
}
