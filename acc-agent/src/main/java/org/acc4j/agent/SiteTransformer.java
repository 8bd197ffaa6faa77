package org.acc4j.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Rewriter;

/**
 * Rewrites the {@code @Kernels} methods of each class as it loads ({@link ClassRewriter}): each loop nest that
 * compiles to a kernel becomes a launch site; the rest of the method is left as it is. A class that cannot be
 * rewritten, for any reason, is left unchanged (plain Java) and the reason is said.
 */
final class SiteTransformer implements ClassFileTransformer {
    private final ToIntFunction<MethodPlan> register;
    private final Consumer<String> warn;

    SiteTransformer(ToIntFunction<MethodPlan> register, Consumer<String> warn) {
        this.register = register;
        this.warn = warn;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                            byte[] bytes) {
        if (className == null || redefined != null || ignored(className) || !ClassRewriter.mentionsKernels(bytes)) {
            return null;
        }
        try {
            return ClassRewriter.rewrite(bytes, internalName -> read(loader, internalName), register, Rewriter.RUNTIME,
                    warn);
        } catch (Throwable t) {
            warn.accept("could not rewrite " + className.replace('/', '.') + " (" + t + "); its @Kernels methods run as"
                    + " plain Java");
            return null;
        }
    }

    static boolean ignored(String name) {
        return name.startsWith("org/acc4j/runtime/") || name.startsWith("org/acc4j/compiler/")
                || name.startsWith("org/acc4j/agent/") || name.startsWith("org/acc4j/shaded/")
                || name.startsWith("java/") || name.startsWith("jdk/") || name.startsWith("sun/")
                || name.startsWith("net/bytebuddy/");
    }

    static byte[] read(ClassLoader loader, String internalName) {
        try (InputStream in = loader != null ? loader.getResourceAsStream(internalName + ".class")
                : ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

}
