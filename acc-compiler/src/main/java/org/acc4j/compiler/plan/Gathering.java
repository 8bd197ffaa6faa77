package org.acc4j.compiler.plan;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The primitive fields of arrays' objects as primitive arrays, for one launch ({@link ValueSource.Gathered}): a
 * kernel that reads {@code p[i].x} of a {@code Particle[] p} is given {@code p[].x}, an array of {@code p.length}
 * doubles made from the elements just before the launch; after a launch that wrote it, each value goes back into its
 * element's field.
 *
 * <p>That is Java's result when, as checked before anything is made ({@link #refusal}), the arrays of objects and their
 * elements are not null, no written field is volatile, and no two elements of the arrays reaching a written field are
 * one object: each element's field is then one element of one gathered array, so the kernel's dependence test on the
 * gathered arrays is its test on the fields. Writing back every element of a written field is invisible for elements
 * the kernel left alone, since each receives the value it had.
 *
 * <p>One per launch, used by one thread.
 */
public final class Gathering {
    /** One gathered array: where it goes among the call's arrays, its field and objects, whether a kernel writes it. */
    private record Use(int index, ValueSource.Gathered source, Object[] objects, Field field, boolean written) {
    }

    private final List<Use> uses = new ArrayList<>();

    /**
     * Adds the array of position {@code index} among the call's arrays, of {@code source}, whose objects' array is
     * {@code objects} (null when the call has none), its field resolved by {@code fields} (from the field's owner and
     * name; unused when the source stands for a length alone).
     *
     * @return why the call must run as plain Java, or null
     */
    public String add(int index, ValueSource.Gathered source, Object objects, boolean written,
                      BiFunction<String, String, Field> fields) {
        if (objects == null) {
            return "the array of objects " + source.objects().name() + " is null";
        }
        Field f = source.field() == null ? null : fields.apply(source.owner(), source.field());
        if (f != null && Modifier.isVolatile(f.getModifiers())) {
            return "the field " + source.field() + " of the objects of " + source.objects().name()
                    + " is volatile (each access is an ordering point in Java)";
        }
        uses.add(new Use(index, source, (Object[]) objects, f, written));
        return null;
    }

    /** Whether no array was added. */
    public boolean isEmpty() {
        return uses.isEmpty();
    }

    /**
     * Why the launch must run as plain Java (a null element, whose field Java would fail to read or write where the
     * nest reaches it; one object twice among the elements reaching a field the kernels write), or null.
     */
    public String refusal() {
        for (Use u : uses) {
            if (u.field == null) {
                continue;
            }
            for (int i = 0; i < u.objects.length; i++) {
                if (u.objects[i] == null) {
                    return u.source.objects().name() + "[" + i + "] is null: Java throws its NullPointerException where"
                            + " the nest reads its field " + u.source.field();
                }
            }
        }
        Map<Field, Map<Object, String>> seen = null;
        for (Use u : uses) {
            if (u.field == null || !writes(u.field)) {
                continue;
            }
            if (seen == null) {
                // fields are equal when they are one field (reflection gives a copy per lookup)
                seen = new HashMap<>();
            }
            Map<Object, String> elements = seen.computeIfAbsent(u.field, f -> new IdentityHashMap<>());
            String array = u.source.objects().name();
            for (int i = 0; i < u.objects.length; i++) {
                String where = array + "[" + i + "]";
                String before = elements.putIfAbsent(u.objects[i], where);
                if (before != null) {
                    return before + " and " + where + " are one object, whose field " + u.field.getName()
                            + " the nest writes: the elements' writes would meet";
                }
            }
        }
        return null;
    }

    /** Whether a kernel writes {@code f} through any array. */
    private boolean writes(Field f) {
        for (Use u : uses) {
            if (u.written && f.equals(u.field)) {
                return true;
            }
        }
        return false;
    }

    /** Makes each gathered array from its objects, into its position of {@code arrays}. */
    public void gather(Object[] arrays) {
        for (Use u : uses) {
            arrays[u.index] = u.field == null ? new boolean[u.objects.length] : gather(u.objects, u.field);
        }
    }

    /** Writes each written gathered array of {@code arrays} back into its objects' field. */
    public void scatter(Object[] arrays) {
        for (Use u : uses) {
            if (u.written && u.field != null) {
                scatter(u.objects, u.field, arrays[u.index]);
            }
        }
    }

    /** The array of field {@code f} of each of {@code objects} (none null). */
    public static Object gather(Object[] objects, Field f) {
        int n = objects.length;
        Class<?> t = f.getType();
        try {
            if (t == double.class) {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getDouble(objects[i]);
                }
                return a;
            } else if (t == float.class) {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getFloat(objects[i]);
                }
                return a;
            } else if (t == int.class) {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getInt(objects[i]);
                }
                return a;
            } else if (t == long.class) {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getLong(objects[i]);
                }
                return a;
            } else if (t == short.class) {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getShort(objects[i]);
                }
                return a;
            } else if (t == char.class) {
                char[] a = new char[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getChar(objects[i]);
                }
                return a;
            } else if (t == byte.class) {
                byte[] a = new byte[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getByte(objects[i]);
                }
                return a;
            } else if (t == boolean.class) {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = f.getBoolean(objects[i]);
                }
                return a;
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("acc4j: cannot read the field " + f.getName() + " of "
                    + f.getDeclaringClass().getName(), e);
        }
        throw new IllegalStateException("acc4j: the field " + f.getName() + " is not of a primitive type");
    }

    /** Sets field {@code f} of each of {@code objects} to its element of {@code array}. */
    public static void scatter(Object[] objects, Field f, Object array) {
        int n = objects.length;
        try {
            if (array instanceof double[] a) {
                for (int i = 0; i < n; i++) {
                    f.setDouble(objects[i], a[i]);
                }
            } else if (array instanceof float[] a) {
                for (int i = 0; i < n; i++) {
                    f.setFloat(objects[i], a[i]);
                }
            } else if (array instanceof int[] a) {
                for (int i = 0; i < n; i++) {
                    f.setInt(objects[i], a[i]);
                }
            } else if (array instanceof long[] a) {
                for (int i = 0; i < n; i++) {
                    f.setLong(objects[i], a[i]);
                }
            } else if (array instanceof short[] a) {
                for (int i = 0; i < n; i++) {
                    f.setShort(objects[i], a[i]);
                }
            } else if (array instanceof char[] a) {
                for (int i = 0; i < n; i++) {
                    f.setChar(objects[i], a[i]);
                }
            } else if (array instanceof byte[] a) {
                for (int i = 0; i < n; i++) {
                    f.setByte(objects[i], a[i]);
                }
            } else if (array instanceof boolean[] a) {
                for (int i = 0; i < n; i++) {
                    f.setBoolean(objects[i], a[i]);
                }
            } else {
                throw new IllegalStateException("acc4j: no array of " + f.getType() + " for the field " + f.getName());
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("acc4j: cannot write the field " + f.getName() + " of "
                    + f.getDeclaringClass().getName(), e);
        }
    }

    /**
     * The field {@code name} that a bytecode reference through class {@code owner} names: declared there or in a super
     * class or interface, as the JVM resolves it, made accessible; null when there is none.
     */
    public static Field resolve(Class<?> owner, String name) {
        for (Class<?> k = owner; k != null; k = k.getSuperclass()) {
            for (Field field : k.getDeclaredFields()) {
                if (field.getName().equals(name) && !Modifier.isStatic(field.getModifiers())) {
                    field.setAccessible(true);
                    return field;
                }
            }
        }
        return null;
    }
}
