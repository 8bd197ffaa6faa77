package org.acc4j.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.LoopRegions;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Rewriter;

/**
 * Rewrites the {@code @Kernels} methods of each class as it loads ({@link ClassRewriter}): each loop nest that
 * compiles to a kernel becomes a launch site; the rest of the method is left as it is. A class that cannot be
 * rewritten, for any reason, is left unchanged (plain Java) and the reason is said. With implicit regions on, host
 * loops that call {@code @Kernels} methods, in any class, are wrapped in data regions where that is safe
 * ({@link LoopRegions}); such a class is found by the owners of the methods its constant pool names.
 */
final class SiteTransformer implements ClassFileTransformer {
    private final ToIntFunction<MethodPlan> register;
    private final Consumer<String> warn;
    private final Consumer<String> note;
    private final Consumer<List<String>> installed;
    /** Whether host loops that call {@code @Kernels} methods get implicit data regions. */
    private final boolean loops;
    /** Per class loader and class: whether its class file mentions {@code @Kernels}. */
    private final Map<String, Boolean> kernelClasses = new ConcurrentHashMap<>();

    SiteTransformer(ToIntFunction<MethodPlan> register, Consumer<String> warn) {
        this(register, warn, line -> { }, methods -> { }, false);
    }

    SiteTransformer(ToIntFunction<MethodPlan> register, Consumer<String> warn, Consumer<String> note,
                    Consumer<List<String>> installed, boolean loops) {
        this.register = register;
        this.warn = warn;
        this.note = note;
        this.installed = installed;
        this.loops = loops;
    }

    /** Whether {@code owner}, as {@code loader} would load it, is a class with {@code @Kernels} methods. */
    private boolean kernelClass(ClassLoader loader, String owner) {
        if (ignored(owner) || owner.startsWith("javax/") || owner.startsWith("com/sun/")
                || owner.startsWith("org/acc4j/")) {
            return false;
        }
        String key = (loader == null ? 0 : System.identityHashCode(loader)) + ":" + owner;
        return kernelClasses.computeIfAbsent(key, k -> {
            byte[] b = read(loader, owner);
            return b != null && ClassRewriter.mentionsKernels(b);
        });
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                            byte[] bytes) {
        if (className == null || redefined != null || ignored(className)) {
            return null;
        }
        boolean mentions = ClassRewriter.mentionsKernels(bytes);
        try {
            // the platform's own classes (the boot loader's) call no @Kernels method
            if (!mentions && (loader == null || !loops
                    || !LoopRegions.mayCallKernels(bytes, owner -> kernelClass(loader, owner)))) {
                return null;
            }
            Inliner.ClassSource classes = internalName -> read(loader, internalName);
            ClassRewriter.Loops regions = loops ? new ClassRewriter.Loops(LoopRegions.fromClassFiles(classes), note,
                    installed) : new ClassRewriter.Loops(null, null, installed);
            return ClassRewriter.rewrite(bytes, classes, register, Rewriter.RUNTIME, warn, regions);
        } catch (Throwable t) {
            if (!mentions) {
                warn.accept("could not look for host loops calling @Kernels methods in " + className.replace('/', '.')
                        + " (" + t + "); its calls move their data as written");
                return null;
            }
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
