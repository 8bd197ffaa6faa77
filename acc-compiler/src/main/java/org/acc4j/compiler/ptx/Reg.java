package org.acc4j.compiler.ptx;

import org.acc4j.compiler.ir.Type;

/** A virtual PTX register of one kernel: its type and number, printed as %r3, %rd7, %f1, %fd2 or %p4. */
public record Reg(Type type, int number) {
    static String prefix(Type t) {
        return switch (t) {
            case I32 -> "%r";
            case I64 -> "%rd";
            case F32 -> "%f";
            case F64 -> "%fd";
            case PRED -> "%p";
        };
    }

    @Override
    public String toString() {
        return prefix(type) + number;
    }
}
