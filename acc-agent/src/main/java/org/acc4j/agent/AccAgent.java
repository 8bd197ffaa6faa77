package org.acc4j.agent;

import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.isAnnotatedWith;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

import java.lang.instrument.Instrumentation;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import net.bytebuddy.dynamic.loading.ClassInjector;
import net.bytebuddy.utility.JavaModule;
import org.acc4j.Acc;
import org.acc4j.runtime.AccRuntime;
import org.acc4j.runtime.Log;

/**
 * The Java agent ({@code -javaagent:acc.jar}). It installs the GPU runtime behind {@link Acc} and rewrites,
 * as classes load, every method annotated {@code @Kernels} (to try the device first and fall back to its
 * original body) and every other method annotated {@code @Data} (to enter and exit its data region).
 * Nothing is compiled until a method is first called.
 */
public final class AccAgent {
    private static final String KERNELS = "org.acc4j.Kernels";
    private static final String DATA = "org.acc4j.Data";

    /**
     * A {@code @Kernels} method with an async clause and no per-call clause ({@code ifParam}, {@code ifField},
     * {@code defaultPresent}): its nests launch together on the queue, as one call.
     */
    private static final ElementMatcher<MethodDescription> ASYNC = m -> {
        for (AnnotationDescription a : m.getDeclaredAnnotations()) {
            if (a.getAnnotationType().getName().equals(KERNELS)) {
                Object q = a.getValue("async").resolve();
                Object p = a.getValue("asyncParam").resolve();
                boolean perCall = !"".equals(a.getValue("ifParam").resolve())
                        || !"".equals(a.getValue("ifField").resolve())
                        || Boolean.TRUE.equals(a.getValue("defaultPresent").resolve());
                boolean async = q instanceof Integer i && i != Acc.ASYNC_SYNC || p instanceof String s && !s.isEmpty();
                return async && !perCall;
            }
        }
        return false;
    };

    /** The classes that get advice: those that declare a {@code @Data} method or an async {@code @Kernels} method. */
    private static final ElementMatcher<TypeDescription> ADVISED =
            declaresMethod(isAnnotatedWith(named(KERNELS)).and(ASYNC).or(isAnnotatedWith(named(DATA))));

    private AccAgent() {
    }

    /** The advice around the methods of a class that {@link #ADVISED} matches. */
    private static DynamicType.Builder<?> advised(DynamicType.Builder<?> builder) {
        return builder
                .visit(Advice.to(KernelsAdvice.class)
                        .on(isAnnotatedWith(named(KERNELS)).and(ASYNC).and(returns(void.class))))
                .visit(Advice.to(KernelsValueAdvice.class)
                        .on(isAnnotatedWith(named(KERNELS)).and(ASYNC).and(not(returns(void.class)))))
                .visit(Advice.to(DataAdvice.class)
                        .on(isAnnotatedWith(named(DATA)).and(not(isAnnotatedWith(named(KERNELS))))));
    }

    /**
     * What the agent's advice makes of one class file: its {@code @Data} methods and its async {@code @Kernels}
     * methods wrapped in the same advice as under the agent, calling {@link AccRuntime}; null when the class has
     * neither. For a class loader that rewrites classes into launch sites itself and runs them without the agent
     * (a test harness's): the sites first, then this, in the agent's order.
     *
     * @param className the class's binary name
     * @param classFile its class file, as the loader will define it
     * @param loader where the types it names are read from (as class files)
     */
    public static byte[] advise(String className, byte[] classFile, ClassLoader loader) {
        ClassFileLocator locator = new ClassFileLocator.Compound(ClassFileLocator.Simple.of(className, classFile),
                ClassFileLocator.ForClassLoader.of(loader));
        TypeDescription type = TypePool.Default.of(locator).describe(className).resolve();
        if (!ADVISED.matches(type)) {
            return null;
        }
        return advised(new ByteBuddy().redefine(type, locator)).make().getBytes();
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        install(instrumentation);
        boolean warm = AccRuntime.warmupEnabled();
        AccRuntime.get().startInBackground(warm ? AccAgent::warmup : null);
        if (warm) {
            // the warm-up class rewritten and its kernels compiled while CUDA starts, on a thread of its own
            Thread t = new Thread(() -> {
                Log.quietOnThisThread(true);
                try {
                    Class.forName(WARMUP, false, AccAgent.class.getClassLoader());
                } catch (ClassNotFoundException | RuntimeException | LinkageError e) {
                    Log.debug("the warm-up class could not be loaded: " + e);
                }
            }, "acc4j-warm");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The runtime's warm-up call's class: outside the packages the transformer skips, so that it is rewritten. */
    private static final String WARMUP = "org.acc4j.warmup.Warmup";

    /**
     * The runtime's warm-up call ({@link org.acc4j.warmup.Warmup}), loaded only now, on the start-up thread, so that
     * the transformer installed above rewrites it. A wrong result is said at WARNING (the thread's quiet mark is lifted
     * for it); nothing thrown escapes.
     */
    static void warmup() {
        try {
            Class<?> c = Class.forName(WARMUP, true, AccAgent.class.getClassLoader());
            Object ok = c.getMethod("run").invoke(null);
            if (!Boolean.TRUE.equals(ok)) {
                Log.quietOnThisThread(false);
                Log.warning("the runtime's warm-up call on the GPU did not give plain Java's result; results of"
                        + " @Kernels methods may be wrong: please report it (ACC4J_WARMUP=off skips the call)");
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Log.debug("the warm-up call failed: " + e);
        }
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        install(instrumentation);
    }

    /**
     * Lets the runtime write staging memory back from the processor's caches (the staging setting {@code flush}):
     * {@code java.base} exports {@code jdk.internal.misc} to it. Where that is refused, the setting does nothing.
     */
    private static void exportWriteback(Instrumentation instrumentation) {
        Module base = Object.class.getModule();
        Module runtime = AccRuntime.class.getModule();
        try {
            if (!base.isExported("jdk.internal.misc", runtime) && instrumentation.isModifiableModule(base)) {
                instrumentation.redefineModule(base, java.util.Set.of(),
                        java.util.Map.of("jdk.internal.misc", java.util.Set.of(runtime)), java.util.Map.of(),
                        java.util.Set.of(), java.util.Map.of());
            }
        } catch (RuntimeException e) {
            Log.debug("staging memory is not written back from the caches: " + e);
        }
    }

    static void install(Instrumentation instrumentation) {
        // advice needs no class injection: keep Byte Buddy off sun.misc.Unsafe (JDK 24+ warns about it)
        System.getProperties().putIfAbsent(ClassInjector.UsingUnsafe.SAFE_PROPERTY, "true");
        exportWriteback(instrumentation);
        Acc.install(AccRuntime.get().backend());
        // @Kernels methods: each loop nest a launch site, the code around it untouched; host loops calling them:
        // implicit data regions where safe
        instrumentation.addTransformer(new SiteTransformer(AccRuntime::register, Log::warning, AccRuntime::agentNote,
                AccRuntime::installed, AccRuntime.loopRegionsEnabled()), false);
        // @Data methods, and @Kernels methods with an async clause: advice around the whole method
        new AgentBuilder.Default()
                .ignore(nameStartsWith("org.acc4j.runtime.")
                        .or(nameStartsWith("org.acc4j.compiler."))
                        .or(nameStartsWith("org.acc4j.agent."))
                        .or(nameStartsWith("org.acc4j.shaded."))
                        .or(nameStartsWith("net.bytebuddy."))
                        .or(nameStartsWith("java."))
                        .or(nameStartsWith("jdk."))
                        .or(nameStartsWith("sun.")))
                .type(ADVISED)
                .transform((builder, type, loader, module, domain) -> advised(builder))
                .with(new AgentBuilder.Listener.Adapter() {
                    @Override
                    public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                                        Throwable throwable) {
                        Log.warning("could not rewrite " + typeName + " (" + throwable
                                + "); its @Kernels methods run as plain Java");
                    }

                    @Override
                    public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module,
                                                 boolean loaded, net.bytebuddy.dynamic.DynamicType dynamicType) {
                        // quiet by default
                    }
                })
                .installOn(instrumentation);
    }
}
