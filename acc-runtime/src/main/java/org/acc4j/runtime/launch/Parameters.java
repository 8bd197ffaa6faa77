package org.acc4j.runtime.launch;

import org.acc4j.compiler.plan.ScalarType;
import org.acc4j.runtime.cuda.Function;
import org.acc4j.runtime.cuda.KernelArgs;
import org.acc4j.runtime.cuda.LaunchArgs;
import org.acc4j.runtime.cuda.Stream;

/**
 * One launch's kernel parameters, written by index: into the variant's block of mapped memory, laid out once
 * ({@link LaunchArgs}), or, where it has none, built anew for this launch ({@link KernelArgs}, which takes them in
 * order).
 */
final class Parameters {
    private final LaunchArgs mapped;
    private final KernelArgs built;

    /** Parameters written into {@code mapped}, or built per launch when it is null. */
    Parameters(LaunchArgs mapped) {
        this.mapped = mapped;
        this.built = mapped == null ? new KernelArgs() : null;
    }

    void pointer(int index, long address) {
        if (mapped != null) {
            mapped.putPointer(index, address);
        } else {
            built.addPointer(address);
        }
    }

    void putInt(int index, int value) {
        if (mapped != null) {
            mapped.putInt(index, value);
        } else {
            built.addInt(value);
        }
    }

    void putLong(int index, long value) {
        if (mapped != null) {
            mapped.putLong(index, value);
        } else {
            built.addLong(value);
        }
    }

    /** A scalar of the kernel's {@code type}, boxed as Java boxes it. */
    void scalar(int index, ScalarType type, Object v) {
        switch (type) {
            case I32 -> putInt(index, (Integer) v);
            case I64 -> putLong(index, (Long) v);
            case F32 -> {
                if (mapped != null) {
                    mapped.putFloat(index, (Float) v);
                } else {
                    built.addFloat((Float) v);
                }
            }
            case F64 -> {
                if (mapped != null) {
                    mapped.putDouble(index, (Double) v);
                } else {
                    built.addDouble((Double) v);
                }
            }
            default -> throw new IllegalStateException("scalar of type " + type);
        }
    }

    /** Launches {@code f} with these parameters, on {@code stream} (null: the default stream). */
    void launch(Function f, int[] grid, int[] block, Stream stream, String entry) {
        if (mapped != null) {
            f.launch(grid, block, mapped, stream, entry);
        } else {
            f.launch(grid, block, built, entry, stream);
        }
    }
}
