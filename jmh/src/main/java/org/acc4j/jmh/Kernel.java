package org.acc4j.jmh;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import org.acc4j.samples.Catalog;
import org.acc4j.samples.VectorAdd;

/**
 * A shipped sample method, called reflectively with an argument array: a {@code @Kernels} method of the
 * {@link Catalog} (offloaded under the agent) or a plain reference. The call's cost is a few nanoseconds next to
 * kernels of a tenth of a millisecond and more.
 *
 * @param name    the catalogue name, {@code sample.flat.variant}
 * @param method  the method, accessible
 * @param outputs positions of the arguments it writes
 */
record Kernel(String name, Method method, List<Integer> outputs) {

    /** The vector add is not a loop nest and so not in the catalogue; it has the same shape of entry. */
    private static final Catalog.Entry VECTOR_ADD = new Catalog.Entry("vectoradd.flat.default", VectorAdd.class,
            "add", "addPlain", List.of(2), (seed, scale) -> {
                throw new UnsupportedOperationException("vector add arguments come from Workload");
            });

    /** The {@code @Kernels} method of catalogue entry {@code sample.flat.variant}. */
    static Kernel offloaded(String sample, String variant) {
        return offloaded(sample, "flat", variant);
    }

    /** The {@code @Kernels} method of catalogue entry {@code sample.form.variant} (form {@code flat} or {@code 2d}). */
    static Kernel offloaded(String sample, String form, String variant) {
        Catalog.Entry e = entry(sample + "." + form + "." + variant);
        return new Kernel(e.name(), e.kernelMethod(), e.outputs());
    }

    /** The plain-Java reference of the sample's flat kernels (never offloaded). */
    static Kernel reference(String sample) {
        return reference(sample, "flat");
    }

    /** The plain-Java reference of the sample's kernels of {@code form} (never offloaded). */
    static Kernel reference(String sample, String form) {
        Catalog.Entry e = entry(sample + "." + form + "." + (sample.equals("copy") || sample.equals("transpose")
                ? "naive" : "default"));
        return new Kernel(sample + "." + form + ".plain", e.referenceMethod(), e.outputs());
    }

    /** A static method of {@code owner} by name (not overloaded), for samples outside the catalogue. */
    static Kernel of(Class<?> owner, String method, List<Integer> outputs) {
        Method found = null;
        for (Method m : owner.getDeclaredMethods()) {
            if (m.getName().equals(method)) {
                if (found != null) {
                    throw new IllegalArgumentException(owner.getSimpleName() + "." + method + " is overloaded");
                }
                found = m;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("no method " + owner.getSimpleName() + "." + method);
        }
        found.setAccessible(true);
        return new Kernel(owner.getSimpleName() + "." + method, found, List.copyOf(outputs));
    }

    private static Catalog.Entry entry(String name) {
        return name.equals(VECTOR_ADD.name()) ? VECTOR_ADD : Catalog.get(name);
    }

    /** Calls the method; what it returns (null for void), exceptions unwrapped. */
    Object call(Object[] args) {
        try {
            return method.invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(name + " threw", cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(name + " is not accessible", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
