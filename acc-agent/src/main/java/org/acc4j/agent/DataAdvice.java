package org.acc4j.agent;

import net.bytebuddy.asm.Advice;
import org.acc4j.runtime.AccRuntime;

/** Inlined into each {@code @Data} method that is not {@code @Kernels}: a structured data region around its body. */
public final class DataAdvice {
    private DataAdvice() {
    }

    @Advice.OnMethodEnter
    static Object enter(@Advice.Origin Class<?> owner, @Advice.Origin("#m") String name,
                        @Advice.Origin("#d") String descriptor, @Advice.This(optional = true) Object self,
                        @Advice.AllArguments Object[] args) {
        return AccRuntime.enterData(owner, name, descriptor, self, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object token) {
        AccRuntime.exitData(token);
    }
}
