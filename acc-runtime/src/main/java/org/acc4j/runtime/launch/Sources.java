package org.acc4j.runtime.launch;

import java.lang.reflect.Field;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.compiler.ir.ArrayRef;

/** Reads the values the compiler's sources name at a call: parameters from the arguments, fields by reflection. */
final class Sources {
    private final Class<?> owner;
    private final ConcurrentHashMap<String, Field> fields = new ConcurrentHashMap<>();

    Sources(Class<?> owner) {
        this.owner = owner;
    }

    Object value(ArrayRef.Source source, Object self, Object[] args) {
        if (source instanceof ArrayRef.Parameter p) {
            return args[p.index()];
        }
        ArrayRef.Field f = (ArrayRef.Field) source;
        Field field = fields.computeIfAbsent(f.owner() + "." + f.name(), k -> lookup(f));
        try {
            return field.get(f.isStatic() ? null : self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("acc4j: cannot read the field " + f.name() + " of " + owner.getName(), e);
        }
    }

    private Field lookup(ArrayRef.Field f) {
        String binary = f.owner().replace('/', '.');
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(binary)) {
                try {
                    Field field = c.getDeclaredField(f.name());
                    field.setAccessible(true);
                    return field;
                } catch (NoSuchFieldException e) {
                    break;
                }
            }
        }
        try {
            Class<?> c = Class.forName(binary, false, owner.getClassLoader());
            Field field = c.getDeclaredField(f.name());
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("acc4j: cannot find the field " + f.name() + " of " + binary, e);
        }
    }

    /** A scalar argument as the kernel parameter wants it (booleans and chars widen to int, as in the JVM). */
    static Object scalar(Object v) {
        if (v instanceof Boolean b) {
            return b ? 1 : 0;
        }
        if (v instanceof Character c) {
            return (int) c;
        }
        if (v instanceof Byte || v instanceof Short) {
            return ((Number) v).intValue();
        }
        return v;
    }
}
