package org.acc4j.compiler.plan;

import java.util.Map;
import java.util.TreeMap;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.MethodBody;

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
            if (!f.path().isEmpty()) {
                return new ValueSource.Field(f.owner(), f.field(), false, f.holder(),
                        f.name().substring(0, f.name().lastIndexOf('.')),
                        f.path().stream().map(h -> new ValueSource.Hop(h.owner(), h.name(), h.isStatic())).toList());
            }
            return f.holder() < 0 ? new ValueSource.Field(f.owner(), f.name(), f.isStatic())
                    : new ValueSource.Field(f.owner(), f.field(), false, f.holder(),
                            f.name().substring(0, f.name().lastIndexOf('.')));
        }
        if (s instanceof ArrayRef.Gathered g) {
            return new ValueSource.Gathered(of(g.objects()), g.owner(), g.field(), g.descriptor(), g.name());
        }
        if (s instanceof ArrayRef.ColourOrder o) {
            return new ValueSource.Made(o.name());
        }
        throw new IllegalStateException("the private array " + s.name() + " is not read at a call");
    }

    /** The parameters {@code m} uses as objects ({@link CompiledMethod.Guards#receivers()}): index to name. */
    static Map<Integer, String> holders(CompiledMethod m) {
        Map<Integer, String> out = new TreeMap<>();
        for (int index : m.guards().receivers()) {
            String name = "#" + index;
            for (MethodBody.Param p : m.body().params()) {
                if (p.index() == index) {
                    name = p.name();
                }
            }
            out.put(index, name);
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
                return "the parameter " + h.getValue() + ", which the kernels use as an object, is null";
            }
        }
        return null;
    }
}
