package org.acc4j.compiler.plan;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.acc4j.compiler.frontend.Inliner;
import org.objectweb.asm.Type;

/**
 * The check that makes it sound to expand an overridable method into a kernel ({@link Inliner.Virtual}): a call's
 * receivers are {@code this} and the parameters the kernels use as objects (the only objects a kernel reaches), and
 * none of their classes may declare such a method again between itself and the class whose body was expanded. A
 * class that does runs the whole call as plain Java, where the JVM dispatches as usual. The answer per class is
 * cached; a method without such expansions checks nothing. Thread-safe.
 */
final class Overrides {
    private final List<Inliner.Virtual> virtuals;
    /** Per receiver class: why it may not run the expanded bodies, or {@link #FINE}. */
    private final Map<Class<?>, String> byClass = new ConcurrentHashMap<>();
    private static final String FINE = "";

    Overrides(List<Inliner.Virtual> virtuals) {
        this.virtuals = List.copyOf(virtuals);
    }

    /** Why a call with {@code self} and {@code args} must run as plain Java, or null. */
    String refusal(Object self, Object[] args, Map<Integer, String> objects) {
        if (virtuals.isEmpty()) {
            return null;
        }
        String why = self == null ? null : of(self.getClass());
        for (Map.Entry<Integer, String> o : objects.entrySet()) {
            Object value = args[o.getKey()];
            if (why == null && value != null) {
                why = of(value.getClass());
            }
        }
        return why;
    }

    private String of(Class<?> c) {
        String why = byClass.computeIfAbsent(c, this::compute);
        return why.isEmpty() ? null : why;
    }

    private String compute(Class<?> c) {
        for (Inliner.Virtual v : virtuals) {
            if (!extendsClass(c, v.owner())) {
                continue;
            }
            for (Class<?> k = c; k != null && !internalName(k).equals(v.declaring()); k = k.getSuperclass()) {
                for (Method m : k.getDeclaredMethods()) {
                    if (m.getName().equals(v.name()) && Type.getMethodDescriptor(m).equals(v.descriptor())
                            && !Modifier.isStatic(m.getModifiers()) && !Modifier.isPrivate(m.getModifiers())) {
                        return k.getName() + " overrides " + v.name() + ", which the kernels run as "
                                + v.declaring().replace('/', '.') + " declares it";
                    }
                }
            }
        }
        return FINE;
    }

    private static boolean extendsClass(Class<?> c, String internalName) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (internalName(k).equals(internalName)) {
                return true;
            }
        }
        return false;
    }

    private static String internalName(Class<?> c) {
        return c.getName().replace('.', '/');
    }
}
