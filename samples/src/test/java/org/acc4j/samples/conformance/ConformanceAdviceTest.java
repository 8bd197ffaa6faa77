package org.acc4j.samples.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The runtime sweep's loader ({@link ConformanceRuntimeCheck#loader}) gives the fixtures the agent's advice: each
 * {@code @Kernels} method with an async clause asks the runtime to offload the whole call, and each {@code @Data}
 * method that is not {@code @Kernels} enters and exits its data region; no other method is advised.
 */
class ConformanceAdviceTest {
    @Test
    void asyncKernelsAndDataMethodsCallTheRuntimeAsUnderTheAgent() throws Exception {
        Sweep.Rewritten loader = ConformanceRuntimeCheck.loader();
        Class.forName(Constructs.class.getName(), true, loader);
        ClassNode c = new ClassNode();
        new ClassReader(loader.defined.get(Constructs.class.getName())).accept(c, 0);
        Map<String, Set<String>> calls = new TreeMap<>();
        for (MethodNode m : c.methods) {
            for (AbstractInsnNode i : m.instructions) {
                if (i.getOpcode() == Opcodes.INVOKESTATIC && i instanceof MethodInsnNode call
                        && call.owner.equals("org/acc4j/runtime/AccRuntime") && Set.of("offload", "offloadValue",
                        "afterHost", "enterData", "exitData").contains(call.name)) {
                    calls.computeIfAbsent(m.name, k -> new TreeSet<>()).add(call.name);
                }
            }
        }
        Set<String> kernels = Set.of("afterHost", "offload");
        Set<String> data = Set.of("enterData", "exitData");
        assertEquals(Map.of("scaleAsync", kernels, "addAsync", kernels, "scaleOn", kernels, "scaledTwice", data,
                "presentRegion", data), calls);
    }
}
