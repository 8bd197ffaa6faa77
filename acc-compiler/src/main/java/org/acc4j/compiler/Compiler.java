package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.List;
import org.acc4j.compiler.frontend.MethodReader;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.pass.Parallelism;
import org.acc4j.compiler.pass.RegionSplitter;
import org.acc4j.compiler.ptx.KernelEmitter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The compiler's entry point: a method's class-file bytes in, PTX kernels and a launch plan out.
 *
 * <p>The pipeline, in order: {@link MethodReader} (bytecode to structured IR), {@link RegionSplitter} (one
 * region per top-level loop nest), {@link Parallelism} (which loops run in parallel, and why),
 * {@link DataClauses} (explicit and implicit data clauses), {@link KernelEmitter} (IR to PTX). Nothing here
 * touches a device, a class loader or a static field; a compilation is a pure function of its inputs.
 */
public final class Compiler {
    /** Bumped whenever generated code changes; part of the kernel cache key. */
    public static final String VERSION = "0.3.0-1";

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
        ClassNode cn = readClass(classFile);
        MethodNode mn = find(cn, name, descriptor);
        try {
            MethodBody body = MethodReader.read(cn, mn);
            List<Region> regions = new ArrayList<>();
            for (Region r : RegionSplitter.split(body)) {
                regions.add(Parallelism.decide(r));
            }
            List<KernelPlan> kernels = new ArrayList<>();
            List<String> report = new ArrayList<>();
            String simple = cn.name.substring(cn.name.lastIndexOf('/') + 1);
            for (Region r : regions) {
                String entry = KernelEmitterNames.entry(simple, mn.name, r.ordinal());
                KernelEmitter.Result k = KernelEmitter.emit(body, r, entry, sm);
                kernels.add(new KernelPlan(r, k.entry(), k.ptx(), k.params(), k.sites()));
                report.add(where(cn, r.loop().line()) + "kernel " + entry + ": " + r.mapping());
                report.add(where(cn, 0) + "  " + r.mapping().shape() + (r.mapping().gridFixed() ? ""
                        : ": the grid depends on run-time values; the first launch's shape is reported"));
                for (String note : r.notes()) {
                    report.add(where(cn, 0) + "  " + note);
                }
                for (var red : r.reductions()) {
                    report.add(where(cn, red.line()) + "  " + red + ": each thread accumulates privately, the grid's "
                            + "values are combined on the device and only the result is copied back");
                }
                for (var v : r.hostVars()) {
                    report.add(where(cn, 0) + "  " + v.name() + " is computed on the host (it depends on a reduction) "
                            + "and passed to the kernel");
                }
                for (var check : r.checks()) {
                    report.add(where(cn, 0) + "  checked before each launch: the writes to " + check.array().name()
                            + " at line " + check.line() + " do not overlap");
                }
            }
            List<DataClause> data = DataClauses.resolve(cn, mn, body, regions);
            for (DataClause c : data) {
                report.add(where(cn, 0) + "data " + c);
            }
            return new Offload(new CompiledMethod(body, kernels, data, report));
        } catch (Unsupported u) {
            return new Host(new Diagnostic(cn.name, mn.name, cn.sourceFile, u.line(), u.construct()));
        }
    }

    /** The explicit {@code @Data} clauses of a method that is not {@code @Kernels} (a data region). */
    public static List<DataClause> dataRegion(byte[] classFile, String name, String descriptor) {
        ClassNode cn = readClass(classFile);
        MethodNode mn = find(cn, name, descriptor);
        return DataClauses.explicit(cn, mn);
    }

    private static String where(ClassNode cn, int line) {
        return (cn.sourceFile != null ? cn.sourceFile : cn.name) + (line > 0 ? ":" + line : "") + ": ";
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
