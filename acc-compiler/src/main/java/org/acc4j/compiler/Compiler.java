package org.acc4j.compiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.frontend.MethodReader;
import org.acc4j.compiler.ir.DataClause;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.RowGroup;
import org.acc4j.compiler.ir.Var;
import org.acc4j.compiler.ir.Verifier;
import org.acc4j.compiler.pass.Bounds;
import org.acc4j.compiler.pass.Increments;
import org.acc4j.compiler.pass.Marching;
import org.acc4j.compiler.pass.Parallelism;
import org.acc4j.compiler.pass.RegionSplitter;
import org.acc4j.compiler.pass.RowGroups;
import org.acc4j.compiler.pass.Tiling;
import org.acc4j.compiler.ptx.KernelEmitter;
import org.acc4j.compiler.ptx.TiledEmitter;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The compiler's entry point: a method's class-file bytes in, PTX kernels and a launch plan out.
 *
 * <p>The pipeline, in order: {@link Inliner} (the application's static, private and final methods expanded in
 * place), {@link MethodReader} (bytecode to structured IR), {@link RegionSplitter} (one
 * region per top-level loop nest), {@link Parallelism} (which loops run in parallel, and why),
 * {@link DataClauses} (explicit and implicit data clauses), {@link KernelEmitter} (IR to PTX). Nothing here
 * touches a device, a class loader or a static field; a compilation is a pure function of its inputs (the
 * class files of callees come from the caller's {@link Inliner.ClassSource}).
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
            Inliner.Expanded expanded = Inliner.expand(cn, mn, classes);
            org.acc4j.compiler.pass.PrivateArrays.Result privates =
                    org.acc4j.compiler.pass.PrivateArrays.rewrite(MethodReader.read(cn, expanded.method()));
            org.acc4j.compiler.pass.ArrayReductions.Result arrays =
                    org.acc4j.compiler.pass.ArrayReductions.rewrite(privates.body());
            MethodBody body = arrays.body();
            Verifier.check("reading", body);
            List<Region> split = RegionSplitter.split(body, outs);
            Verifier.check("region splitting", body, split);
            List<String> incrementNotes = new ArrayList<>();
            RowGroups.Prepared prepared = RowGroups.prepare(Increments.apply(split, incrementNotes));
            Verifier.check("indirect increments and row groups", body, prepared.regions());
            List<Region> regions = Parallelism.decideAll(prepared.regions(), flag(mn, "serial"), flag(mn, "relaxed"));
            Verifier.check("the parallelism decision", body, regions);
            List<KernelPlan> kernels = new ArrayList<>();
            List<String> report = new ArrayList<>();
            for (String call : expanded.inlined()) {
                report.add(where(cn, 0) + "inlined " + call);
            }
            for (String note : privates.notes()) {
                report.add(where(cn, 0) + note);
            }
            for (String note : arrays.notes()) {
                report.add(where(cn, 0) + note);
            }
            for (String note : incrementNotes) {
                report.add(where(cn, 0) + note);
            }
            String simple = cn.name.substring(cn.name.lastIndexOf('/') + 1);
            for (Region r : regions) {
                String entry = KernelEmitterNames.entry(simple, mn.name, r.ordinal());
                List<String> groupNotes = new ArrayList<>();
                RowGroup group = RowGroups.find(r, prepared.asked().get(r.ordinal()), groupNotes);
                KernelEmitter.Result k = KernelEmitter.emit(body, r, entry, sm, List.of(), group);
                List<RangeCheck> hoisted = Bounds.hoistable(r);
                KernelPlan.Unchecked unchecked = null;
                if (!hoisted.isEmpty()) {
                    KernelEmitter.Result u = KernelEmitter.emit(body, r, entry + "_nc", sm,
                            hoisted.stream().map(RangeCheck::node).toList(), group);
                    if (!u.params().equals(k.params())) {
                        throw new IllegalStateException("the unchecked variant of " + entry + " has other parameters");
                    }
                    unchecked = new KernelPlan.Unchecked(u.entry(), u.ptx(), u.sites(), hoisted);
                    Tiling.Kernel tiled = Tiling.transpose(body, r, hoisted, k.params());
                    if (tiled == null) {
                        tiled = Tiling.matmul(body, r, hoisted, k.params(), Tiling.MatmulTile.configured(),
                                flag(mn, "relaxed") && sm >= 90);
                    }
                    if (tiled != null) {
                        unchecked = new KernelPlan.Unchecked(entry + "_tiled", TiledEmitter.emit(body, tiled,
                                entry + "_tiled", k.params(), sm), List.of(), hoisted, tiled);
                    } else if (group == null) {
                        unchecked = marched(body, r, hoisted, entry, sm, k.params(), unchecked);
                    }
                }
                kernels.add(new KernelPlan(r, k.entry(), k.ptx(), k.params(), k.sites(), unchecked));
                report.add(where(cn, r.loop().line()) + "kernel " + entry + ": " + r.mapping());
                report.add(where(cn, 0) + "  " + r.mapping().shape() + (r.mapping().gridFixed() ? ""
                        : ": the grid depends on run-time values; the first launch's shape is reported"));
                for (String note : r.notes()) {
                    // a row group's note replaces the parallelism pass's about its inner loop
                    if (group == null || !note.startsWith("line " + group.inner().line() + ": loop over "
                            + group.inner().index().name() + ": sequential")) {
                        report.add(where(cn, 0) + "  " + note);
                    }
                }
                for (String note : groupNotes) {
                    report.add(where(cn, group != null ? group.inner().line() : 0) + "  " + note);
                }
                if (r.scan() != null) {
                    report.add(where(cn, r.scan().line()) + "  " + r.scan() + ": one pass on the device (each element read"
                            + " and written once), the tiles' prefixes found by a decoupled look-back");
                }
                for (var red : r.reductions()) {
                    report.add(where(cn, red.line()) + "  " + red + ": each thread accumulates privately, the grid's "
                            + "values are combined on the device and only the result is copied back");
                }
                if (!hoisted.isEmpty()) {
                    report.add(where(cn, 0) + "  bounds of " + hoisted.size() + " access"
                            + (hoisted.size() == 1 ? "" : "es") + " proven on the host before each launch (no check in "
                            + "the kernel when they hold): " + hoisted.stream().map(c -> c.array().name() + " at line "
                            + c.line()).distinct().collect(java.util.stream.Collectors.joining(", ")));
                }
                if (unchecked != null && unchecked.tiled() != null) {
                    report.add(where(cn, r.loop().line()) + "  " + unchecked.tiled().note());
                    if (unchecked.tiled() instanceof Tiling.Matmul mm && !mm.tensorCores()
                            && Tiling.MatmulTile.configurationNote() != null) {
                        report.add(where(cn, r.loop().line()) + "  " + Tiling.MatmulTile.configurationNote());
                    }
                }
                if (unchecked != null && unchecked.marched() != null) {
                    report.add(where(cn, r.loop().line()) + "  " + unchecked.marched().notes().get(
                            unchecked.marched().notes().size() - 1));
                }
                for (var v : r.hostVars()) {
                    report.add(where(cn, 0) + "  " + v.name() + " is computed on the host (it depends on a reduction) "
                            + "and passed to the kernel");
                }
                for (var f : r.mapping().checkedLoops()) {
                    var st = f.stride();
                    report.add(where(cn, f.line()) + "  checked before each launch: the loop over "
                            + (st == null ? f.index().name() + " reaches its bound " + f.bound() + " in whole steps of "
                            + f.step() : st.var().name() + " steps by " + st.step() + " > 0 and reaches its bound "
                            + st.bound() + " without wrapping around") + " (else the call runs on the host)");
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
            return new Offload(new CompiledMethod(body, kernels, data, report, outs));
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
        for (List<AnnotationNode> list : java.util.Arrays.asList(mn.visibleAnnotations, mn.invisibleAnnotations)) {
            for (AnnotationNode a : list == null ? List.<AnnotationNode>of() : list) {
                if ("Lorg/acc4j/Kernels;".equals(a.desc) && a.values != null) {
                    for (int i = 0; i + 1 < a.values.size(); i += 2) {
                        if (name.equals(a.values.get(i)) && Boolean.TRUE.equals(a.values.get(i + 1))) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** The explicit {@code @Data} clauses of a method that is not {@code @Kernels} (a data region). */
    public static List<DataClause> dataRegion(byte[] classFile, String name, String descriptor) {
        ClassNode cn = readClass(classFile);
        MethodNode mn = find(cn, name, descriptor);
        return DataClauses.explicit(cn, mn);
    }

    /**
     * The unchecked variant of a stencil nest marched by {@link Marching}, or {@code plain} when it has not the shape
     * (or its kernel would take other parameters).
     */
    private static KernelPlan.Unchecked marched(MethodBody body, Region r, List<RangeCheck> hoisted, String entry,
                                                int sm, List<org.acc4j.compiler.ir.KernelParam> params,
                                                KernelPlan.Unchecked plain) {
        Marching.Kernel m = Marching.march(body, r, hoisted);
        if (m == null) {
            return plain;
        }
        KernelEmitter.Result k = KernelEmitter.emit(body, m.region(), entry + "_marched", sm, m.unchecked(), null);
        return k.params().equals(params) ? new KernelPlan.Unchecked(k.entry(), k.ptx(), k.sites(), hoisted, null,
                m.region()) : plain;
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
