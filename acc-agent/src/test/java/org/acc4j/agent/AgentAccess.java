package org.acc4j.agent;

import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.acc4j.compiler.site.MethodPlan;

/** The agent's package-private parts, for tests in other packages. */
public final class AgentAccess {
    private AgentAccess() {
    }

    /** What the agent's transformer makes of {@code bytes}, class {@code internalName} as {@code loader} loads it. */
    public static byte[] transform(ToIntFunction<MethodPlan> register, Consumer<String> warn, ClassLoader loader,
                                   String internalName, byte[] bytes) {
        return new SiteTransformer(register, warn).transform(loader, internalName, null, null, bytes);
    }

    /** The warm-up call's switch, as the agent reads it. */
    public static boolean warmupEnabled() {
        return org.acc4j.runtime.AccRuntime.warmupEnabled();
    }
}
