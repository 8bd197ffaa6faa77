package org.acc4j.compiler.ir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.Acc;

/** Runs an {@link AtomicOp} on a host array with {@code Acc}'s own routines, so the result is theirs exactly. */
public final class AtomicEval {
    private AtomicEval() {
    }

    /**
     * Applies {@code op} to {@code array[index]} with {@code operands} (boxed as the IR computes them); returns the
     * old value, the CAS result as an {@code Integer} 0 or 1, or null for a write.
     */
    public static Object apply(AtomicOp op, Object array, int index, List<Object> operands) {
        Class<?> element = array.getClass().getComponentType();
        Class<?>[] types = new Class<?>[2 + operands.size()];
        Object[] args = new Object[types.length];
        types[0] = array.getClass();
        types[1] = int.class;
        args[0] = array;
        args[1] = index;
        for (int k = 0; k < operands.size(); k++) {
            types[2 + k] = element;
            args[2 + k] = operands.get(k);
        }
        Method routine;
        try {
            // the routine named by the operation for this array type: atomicAdd(int[], int, int), ...
            routine = element == null ? null : Acc.class.getMethod(op.routine(), types);
        } catch (NoSuchMethodException e) {
            routine = null;
        }
        if (routine == null) {
            throw new IllegalArgumentException(op.routine() + " on " + array.getClass().getTypeName());
        }
        try {
            Object old = routine.invoke(null, args);
            return old instanceof Boolean set ? (Integer) (set ? 1 : 0) : old;
        } catch (InvocationTargetException e) {
            // the routine's own exception (an index out of bounds, say), as a direct call throws it
            if (e.getCause() instanceof RuntimeException x) {
                throw x;
            }
            if (e.getCause() instanceof Error x) {
                throw x;
            }
            throw new IllegalStateException(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
