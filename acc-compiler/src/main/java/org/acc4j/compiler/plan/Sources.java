package org.acc4j.compiler.plan;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.KernelParam;

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
            return f.holder() < 0 ? new ValueSource.Field(f.owner(), f.name(), f.isStatic())
                    : new ValueSource.Field(f.owner(), f.field(), false, f.holder(),
                            f.name().substring(0, f.name().lastIndexOf('.')));
        }
        if (s instanceof ArrayRef.ColourOrder o) {
            return new ValueSource.Made(o.name());
        }
        throw new IllegalStateException("the private array " + s.name() + " is not read at a call");
    }

    /** The parameters whose objects' fields {@code kernels} read ({@code b} of {@code b.data}): index to name. */
    static Map<Integer, String> holders(List<KernelPlan> kernels) {
        Map<Integer, String> out = new TreeMap<>();
        for (KernelPlan k : kernels) {
            for (KernelParam p : k.params()) {
                ArrayRef.Source s = p instanceof KernelParam.ArrayData d ? d.array().source()
                        : p instanceof KernelParam.ArrayLength l ? l.array().source()
                        : p instanceof KernelParam.RowBlock b ? b.array().source()
                        : p instanceof KernelParam.Scalar v ? v.source() : null;
                if (s instanceof ArrayRef.Field f && f.holder() >= 0) {
                    out.put(f.holder(), f.name().substring(0, f.name().lastIndexOf('.')));
                }
            }
        }
        return Map.copyOf(out);
    }

    /**
     * Why a call with {@code args} runs as plain Java because a parameter whose fields the kernels read is null (Java
     * then throws its {@code NullPointerException} where the field is read, if it is), or null.
     */
    static String nullHolder(Map<Integer, String> holders, Object[] args) {
        for (Map.Entry<Integer, String> h : holders.entrySet()) {
            if (args[h.getKey()] == null) {
                return "the parameter " + h.getValue() + ", whose fields the kernels read, is null";
            }
        }
        return null;
    }
}
