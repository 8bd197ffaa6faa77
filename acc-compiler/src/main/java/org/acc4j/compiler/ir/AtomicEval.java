package org.acc4j.compiler.ir;

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
        Object v = operands.isEmpty() ? null : operands.get(operands.size() - 1);
        if (array instanceof int[] a) {
            int x = v == null ? 0 : (Integer) v;
            return switch (op) {
                case ADD -> Acc.atomicAdd(a, index, x);
                case MIN -> Acc.atomicMin(a, index, x);
                case MAX -> Acc.atomicMax(a, index, x);
                case AND -> Acc.atomicAnd(a, index, x);
                case OR -> Acc.atomicOr(a, index, x);
                case XOR -> Acc.atomicXor(a, index, x);
                case EXCHANGE -> Acc.atomicExchange(a, index, x);
                case CAS -> Acc.atomicCompareAndSet(a, index, (Integer) operands.get(0), x) ? 1 : 0;
                case READ -> Acc.atomicRead(a, index);
                case WRITE -> write(() -> Acc.atomicWrite(a, index, x));
            };
        }
        if (array instanceof long[] a) {
            long x = v == null ? 0 : (Long) v;
            return switch (op) {
                case ADD -> Acc.atomicAdd(a, index, x);
                case MIN -> Acc.atomicMin(a, index, x);
                case MAX -> Acc.atomicMax(a, index, x);
                case AND -> Acc.atomicAnd(a, index, x);
                case OR -> Acc.atomicOr(a, index, x);
                case XOR -> Acc.atomicXor(a, index, x);
                case EXCHANGE -> Acc.atomicExchange(a, index, x);
                case CAS -> Acc.atomicCompareAndSet(a, index, (Long) operands.get(0), x) ? 1 : 0;
                case READ -> Acc.atomicRead(a, index);
                case WRITE -> write(() -> Acc.atomicWrite(a, index, x));
            };
        }
        if (array instanceof float[] a) {
            float x = v == null ? 0 : (Float) v;
            return switch (op) {
                case ADD -> Acc.atomicAdd(a, index, x);
                case MIN -> Acc.atomicMin(a, index, x);
                case MAX -> Acc.atomicMax(a, index, x);
                case EXCHANGE -> Acc.atomicExchange(a, index, x);
                case CAS -> Acc.atomicCompareAndSet(a, index, (Float) operands.get(0), x) ? 1 : 0;
                case READ -> Acc.atomicRead(a, index);
                case WRITE -> write(() -> Acc.atomicWrite(a, index, x));
                default -> throw new IllegalArgumentException(op.routine() + " on float[]");
            };
        }
        if (array instanceof double[] a) {
            double x = v == null ? 0 : (Double) v;
            return switch (op) {
                case ADD -> Acc.atomicAdd(a, index, x);
                case MIN -> Acc.atomicMin(a, index, x);
                case MAX -> Acc.atomicMax(a, index, x);
                case EXCHANGE -> Acc.atomicExchange(a, index, x);
                case CAS -> Acc.atomicCompareAndSet(a, index, (Double) operands.get(0), x) ? 1 : 0;
                case READ -> Acc.atomicRead(a, index);
                case WRITE -> write(() -> Acc.atomicWrite(a, index, x));
                default -> throw new IllegalArgumentException(op.routine() + " on double[]");
            };
        }
        throw new IllegalArgumentException(op.routine() + " on " + array.getClass().getTypeName());
    }

    private static Object write(Runnable r) {
        r.run();
        return null;
    }
}
