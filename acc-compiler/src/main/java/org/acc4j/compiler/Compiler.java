package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.frontend.Directives;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Var;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The compiler's entry point: a method's class-file bytes in, PTX kernels and a launch plan out.
 *
 * <p>The phases, in order, are {@link Pipeline.Phase}'s, and {@link Pipeline} runs them; the report is
 * {@link CompileReport}'s. Nothing here touches a device, a class loader or a static field; a compilation is a pure
 * function of its inputs (the class files of callees come from the caller's {@link Inliner.ClassSource}).
 */
public final class Compiler {
    /** Bumped whenever generated code changes; part of the kernel cache key. */
    public static final String VERSION = "0.3.0-4";

    /** Vector length when the user names none: 4 warps, a multiple of the warp, and 16 blocks fit an SM. */
    public static final int DEFAULT_VECTOR = 128;

    /** Outcome of a compilation: a plan to offload, or the reason the method stays on the host. */
    public sealed interface Result {
    }

    /** The method runs on the device. */
    public record Offload(CompiledMethod method) implements Result {
    }

    /** The method runs on the host, for this reason. */
    public record Host(Diagnostic reason) implements Result {
    }

    private Compiler() {
    }

    /**
     * Compiles the method {@code name}{@code descriptor} of the class whose bytes are given.
     *
     * @param sm the device's compute capability as major*10+minor
     */
    public static Result compile(byte[] classFile, String name, String descriptor, int sm) {
        return compile(classFile, name, descriptor, sm, internalName -> null);
    }

    /**
     * Compiles the method {@code name}{@code descriptor} of the class whose bytes are given, inlining the
     * static, private and final methods it calls: those of its own class, and of the classes whose bytes
     * {@code classes} gives.
     *
     * @param sm the device's compute capability as major*10+minor
     */
    public static Result compile(byte[] classFile, String name, String descriptor, int sm, Inliner.ClassSource classes) {
        ClassNode cn = readClass(classFile);
        return compile(cn, find(cn, name, descriptor), sm, classes, List.of());
    }

    /**
     * Compiles method {@code mn} of class {@code cn} (which the compiler does not change). With {@code outputs}, the
     * slots and descriptors of locals whose final values a call gives back ({@link CompiledMethod#outputs()}): each
     * must be a reduction's variable, since only those leave a parallel nest.
     */
    public static Result compile(ClassNode cn, MethodNode mn, int sm, Inliner.ClassSource classes,
                                 List<Map.Entry<Integer, String>> outputs) {
        List<Var> outs = new ArrayList<>();
        for (Map.Entry<Integer, String> o : outputs) {
            org.acc4j.compiler.ir.Type t = org.acc4j.compiler.ir.Type.ofDescriptor(o.getValue());
            outs.add(new Var(o.getKey(), t, "v" + o.getKey()));
        }
        return compileOutputs(cn, mn, sm, classes, outs);
    }

    /** As {@link #compile(ClassNode, MethodNode, int, Inliner.ClassSource, List)}, with the outputs as variables. */
    public static Result compileOutputs(ClassNode cn, MethodNode mn, int sm, Inliner.ClassSource classes,
                                        List<Var> outs) {
        try {
            return new Offload(Pipeline.run(cn, mn, sm, classes, outs).compiled());
        } catch (Unsupported u) {
            return new Host(new Diagnostic(cn.name, MethodBody.sourceName(mn.name), cn.sourceFile, u.line(),
                    u.construct(), u.obstacles()));
        }
    }

    /**
     * Whether {@code mn} sets the boolean element {@code name} of its {@code @Kernels} to true: {@code serial} (each
     * nest on one device thread), {@code relaxed} (float scans may be regrouped).
     */
    public static boolean flag(MethodNode mn, String name) {
        return Directives.flag(mn, name);
    }

    /** The explicit {@code @Data} clauses of a method that is not {@code @Kernels} (a data region). */
    public static List<DataClause> dataRegion(byte[] classFile, String name, String descriptor) {
        ClassNode cn = readClass(classFile);
        MethodNode mn = find(cn, name, descriptor);
        return Directives.explicitData(cn, mn);
    }

    static ClassNode readClass(byte[] classFile) {
        ClassNode cn = new ClassNode();
        new ClassReader(classFile).accept(cn, 0);
        return cn;
    }

    static MethodNode find(ClassNode cn, String name, String descriptor) {
        for (MethodNode m : cn.methods) {
            if (m.name.equals(name) && m.desc.equals(descriptor)) {
                return m;
            }
        }
        throw new IllegalArgumentException("no method " + name + descriptor + " in " + cn.name);
    }

    /** Kernel entry names: acc_Class_method_rN, limited to PTX identifier characters. */
    static final class KernelEmitterNames {
        private KernelEmitterNames() {
        }

        static String entry(String simpleClass, String method, int region) {
            return ("acc_" + simpleClass + "_" + method + "_r" + region).replaceAll("[^A-Za-z0-9_]", "_");
        }
    }
}
