package org.acc4j.agent;

import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.acc4j.runtime.AccRuntime;

/**
 * Inlined into each {@code @Kernels} method that returns a value: as {@link KernelsAdvice}, and when the device
 * ran the call, the method returns the value the device's run computed (a reduction's result, say).
 */
public final class KernelsValueAdvice {
    private KernelsValueAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object[] enter(@Advice.Origin Class<?> owner, @Advice.Origin("#m") String name,
                          @Advice.Origin("#d") String descriptor, @Advice.This(optional = true) Object self,
                          @Advice.AllArguments Object[] args) {
        return AccRuntime.offloadValue(owner, name, descriptor, self, args);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class)
    static void exit(@Advice.Enter Object[] offloaded, @Advice.Origin Class<?> owner,
                     @Advice.This(optional = true) Object self, @Advice.AllArguments Object[] args,
                     @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (offloaded != null) {
            returned = offloaded[0];
        } else {
            AccRuntime.afterHost(owner, self, args);
        }
    }
}
