package org.acc4j.compiler.site;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.ToIntFunction;

/**
 * Test classes rewritten into launch sites as the agent rewrites them, in a loader of their own: each class whose name
 * starts with the given prefix is read from the parent loader's resources and passed through {@link
 * ClassRewriter#rewrite}; every other class comes from the parent. A rewrite's warning fails the test.
 */
public final class RewritingLoader extends ClassLoader {
    private final String prefix;
    private final ToIntFunction<MethodPlan> register;
    private final String runtime;

    /**
     * @param parent   the loader of the test, whose resources hold the fixtures' class files
     * @param prefix   the binary name the rewritten classes start with (a fixture class, its nested classes with it)
     * @param register registers each rewritten method's plan, as the runtime's {@code register} does
     * @param runtime  the internal name of the class the rewritten methods call
     */
    public RewritingLoader(ClassLoader parent, String prefix, ToIntFunction<MethodPlan> register, String runtime) {
        super(parent);
        this.prefix = prefix;
        this.register = register;
        this.runtime = runtime;
    }

    /** The class file of {@code internalName} from {@code loader}'s resources, or null when it has none. */
    public static byte[] bytes(ClassLoader loader, String internalName) {
        try (InputStream in = loader.getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            if (!name.startsWith(prefix)) {
                return super.loadClass(name, resolve);
            }
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                byte[] original = bytes(getParent(), name.replace('.', '/'));
                byte[] b;
                try {
                    b = ClassRewriter.rewrite(original, n -> bytes(getParent(), n), register, runtime, w -> {
                        throw new AssertionError(w);
                    });
                } catch (Exception e) {
                    throw new ClassNotFoundException(name, e);
                }
                b = b == null ? original : b;
                c = defineClass(name, b, 0, b.length);
            }
            return c;
        }
    }
}
