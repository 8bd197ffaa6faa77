package org.acc4j.runtime.launch;

import java.lang.reflect.Field;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.compiler.plan.ScalarType;
import org.acc4j.compiler.plan.ValueReader;
import org.acc4j.compiler.plan.ValueSource;

/**
 * Reads the values the compiler's sources name at a call: parameters from the arguments, fields (of the class, of
 * {@code this} or of an argument's object) by reflection.
 */
final class Sources implements ValueReader {
    private final Class<?> owner;
    private final ConcurrentHashMap<String, Field> fields = new ConcurrentHashMap<>();

    Sources(Class<?> owner) {
        this.owner = owner;
    }

    @Override
    public Object value(ValueSource source, Object self, Object[] args) {
        if (source instanceof ValueSource.Argument p) {
            return args[p.index()];
        }
        if (source instanceof ValueSource.Gathered g) {
            // on the host, a field of an array's objects is that array of objects (its length is the gathered array's)
            return value(g.objects(), self, args);
        }
        ValueSource.Field f = (ValueSource.Field) source;
        Object target = f.target(self, args);
        for (ValueSource.Hop h : f.path()) {
            if (target == null && !h.isStatic()) {
                return null;
            }
            Field hop = fields.computeIfAbsent(h.owner() + "." + h.name(), k -> lookup(h.owner(), h.name()));
            try {
                target = hop.get(h.isStatic() ? null : target);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("acc4j: cannot read the field " + h.name() + " of " + h.owner(), e);
            }
        }
        if (target == null && !f.isStatic()) {
            // a null parameter, or a null field on the way, whose field is named: the call runs as plain Java
            return null;
        }
        Field field = fields.computeIfAbsent(f.owner() + "." + f.name(), k -> lookup(f.owner(), f.name()));
        try {
            return field.get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("acc4j: cannot read the field " + f.name() + " of " + owner.getName(), e);
        }
    }

    /** The instance field {@code name} that a reference through class {@code internalOwner} names, accessible. */
    Field instanceField(String internalOwner, String name) {
        return fields.computeIfAbsent(internalOwner + "." + name, k -> lookup(internalOwner, name));
    }

    /**
     * The field a bytecode reference names: declared in the class it is referenced through, or in one of that class's
     * super classes or interfaces (an inherited field, {@code CG.x} declared in {@code CGBase}), as the JVM resolves it.
     */
    private Field lookup(String internalOwner, String name) {
        String binary = internalOwner.replace('/', '.');
        Class<?> start = null;
        for (Class<?> c = owner; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(binary)) {
                start = c;
                break;
            }
        }
        try {
            if (start == null) {
                start = Class.forName(binary, false, owner.getClassLoader());
            }
            Field field = resolve(start, name);
            if (field != null) {
                field.setAccessible(true);
                return field;
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw new IllegalStateException("acc4j: cannot find the field " + name + " of " + binary, e);
        }
        throw new IllegalStateException("acc4j: cannot find the field " + name + " of " + binary);
    }

    private static Field resolve(Class<?> c, String name) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field field : k.getDeclaredFields()) {
                if (field.getName().equals(name)) {
                    return field;
                }
            }
            for (Class<?> i : k.getInterfaces()) {
                Field field = resolve(i, name);
                if (field != null) {
                    return field;
                }
            }
        }
        return null;
    }

    /** A scalar argument as the kernel parameter wants it (booleans and chars widen to int, as in the JVM). */
    static Object scalar(Object v) {
        return ScalarType.widen(v);
    }
}
