package org.acc4j.compiler.ir;

/** The atomic read-modify-write operations of {@code Acc.atomic...}, with the operands each takes. */
public enum AtomicOp {
    ADD("Add", 1), MIN("Min", 1), MAX("Max", 1), AND("And", 1), OR("Or", 1), XOR("Xor", 1),
    EXCHANGE("Exchange", 1), CAS("CompareAndSet", 2), READ("Read", 0), WRITE("Write", 1);

    private final String suffix;
    private final int operands;

    AtomicOp(String suffix, int operands) {
        this.suffix = suffix;
        this.operands = operands;
    }

    /** The {@code Acc} routine's name. */
    public String routine() {
        return "atomic" + suffix;
    }

    /** The number of value operands after the array and the index ({@code expected, value} for CAS). */
    public int operands() {
        return operands;
    }

    /** Whether the operation changes the element. */
    public boolean writes() {
        return this != READ;
    }

    /** Whether the element type {@code t} is allowed: and, or and xor on integers only. */
    public boolean accepts(Type t) {
        return switch (this) {
            case AND, OR, XOR -> t == Type.I32 || t == Type.I64;
            default -> t == Type.I32 || t == Type.I64 || t == Type.F32 || t == Type.F64;
        };
    }

    /** The routine named {@code name}, or null. */
    public static AtomicOp named(String name) {
        for (AtomicOp op : values()) {
            if (op.routine().equals(name)) {
                return op;
            }
        }
        return null;
    }
}
