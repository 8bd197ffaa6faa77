package org.acc4j.agent;

import net.bytebuddy.asm.Advice;
import org.acc4j.runtime.AccRuntime;

/**
 * Inlined into each {@code @Kernels} method: the device runs the call when it can, and the original body
 * (the host path) is skipped; otherwise the body runs, and afterwards device copies of its arrays are
 * refreshed so that a data region around the call stays consistent.
 */
public final class KernelsAdvice {
    private KernelsAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.Origin Class<?> owner, @Advice.Origin("#m") String name,
                         @Advice.Origin("#d") String descriptor, @Advice.This(optional = true) Object self,
                         @Advice.AllArguments Object[] args) {
        return AccRuntime.offload(owner, name, descriptor, self, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter boolean offloaded, @Advice.Origin Class<?> owner,
                     @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args) {
        if (!offloaded) {
            AccRuntime.afterHost(owner, self, args);
        }
    }
}
