package org.acc4j.compiler.site;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.acc4j.compiler.frontend.Inliner;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicInterpreter;

/**
 * Rewrites the {@code @Kernels} methods of a class file: each is planned ({@link Planner}), registered with the
 * runtime, and rewritten ({@link Rewriter}) with its frames computed afresh. Methods with an async clause are left
 * as they are (they launch as one call). Pure: bytes in, bytes out; class files of other classes come from a
 * {@link Inliner.ClassSource}, never by loading classes.
 */
public final class ClassRewriter {
    /** The annotation's descriptor, and its bytes, to skip classes that do not mention it. */
    public static final String KERNELS = "Lorg/acc4j/Kernels;";
    private static final byte[] MARK = KERNELS.getBytes(StandardCharsets.UTF_8);

    private ClassRewriter() {
    }

    /** The plans of every {@code @Kernels} method of a class file, in the class's order (none are registered). */
    public static List<MethodPlan> plans(byte[] bytes, Inliner.ClassSource classes) throws AnalyzerException {
        List<MethodPlan> out = new ArrayList<>();
        if (!mentionsKernels(bytes)) {
            return out;
        }
        ClassNode cn = new ClassNode();
        new ClassReader(bytes).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (kernels(mn) && (mn.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                out.add(Planner.plan(cn, mn, classes));
            }
        }
        return out;
    }

    /** Whether a class file mentions {@code @Kernels} at all (a fast test before parsing it). */
    public static boolean mentionsKernels(byte[] bytes) {
        return contains(bytes, MARK);
    }

    /** The class with its {@code @Kernels} methods rewritten, or null when none has a site. */
    public static byte[] rewrite(byte[] bytes, Inliner.ClassSource classes, ToIntFunction<MethodPlan> register,
                                 String runtime, Consumer<String> warn) throws AnalyzerException {
        return rewrite(bytes, classes, register, runtime, warn, null);
    }

    /**
     * What a rewrite does besides the {@code @Kernels} methods.
     *
     * @param kernels   tells calls of {@code @Kernels} methods of other classes; with it, host loops that call them
     *                  get implicit data regions ({@link LoopRegions})
     * @param notes     a line for each loop with such calls that gets no region, and why
     * @param installed after a rewrite that returns bytes: the {@code @Kernels} methods rewritten, each as
     *                  {@code owner.namedescriptor}
     */
    public record Loops(LoopRegions.Kernels kernels, Consumer<String> notes, Consumer<List<String>> installed) {
    }

    /** As {@link #rewrite(byte[], Inliner.ClassSource, ToIntFunction, String, Consumer)}, with implicit regions. */
    public static byte[] rewrite(byte[] bytes, Inliner.ClassSource classes, ToIntFunction<MethodPlan> register,
                                 String runtime, Consumer<String> warn, Loops loops) throws AnalyzerException {
        ClassNode original = new ClassNode();
        new ClassReader(bytes).accept(original, 0);
        ClassNode out = new ClassNode();
        new ClassReader(bytes).accept(out, 0);
        boolean changed = false;
        List<String> rewritten = new ArrayList<>();
        LoopRegions.Kernels kernels = loops == null ? null : LoopRegions.withClass(original, loops.kernels());
        for (int i = 0; i < original.methods.size(); i++) {
            MethodNode mn = original.methods.get(i);
            if ((mn.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                continue;
            }
            if (!kernels(mn)) {
                if (kernels != null && LoopRegions.callsKernels(mn, kernels)) {
                    changed |= loops(original, out, i, kernels, classes, runtime, loops.notes(), warn);
                }
                continue;
            }
            MethodPlan plan;
            try {
                plan = Planner.plan(original, mn, classes);
            } catch (AnalyzerException | RuntimeException e) {
                warn.accept("could not plan " + original.name.replace('/', '.') + "." + mn.name + " (" + e
                        + "); it runs as plain Java");
                continue;
            }
            if (plan.async()) {
                continue;
            }
            int id = register.applyAsInt(plan);
            MethodNode target = out.methods.get(i);
            Rewriter.rewrite(target, plan, id, runtime);
            MethodNode framed = framed(out, target, classes);
            verify(out.name, framed);
            out.methods.set(i, framed);
            rewritten.add(original.name + "." + mn.name + mn.desc);
            changed = true;
        }
        if (!changed) {
            return null;
        }
        ClassWriter w = new ClassWriter(0);
        out.accept(w);
        byte[] result = w.toByteArray();
        if (loops != null && loops.installed() != null && !rewritten.isEmpty()) {
            loops.installed().accept(rewritten);
        }
        return result;
    }

    /** Wraps the qualifying loops of method {@code i} in implicit data regions; false when none is (or on failure). */
    private static boolean loops(ClassNode original, ClassNode out, int i, LoopRegions.Kernels kernels,
                                 Inliner.ClassSource classes, String runtime, Consumer<String> notes,
                                 Consumer<String> warn) {
        MethodNode mn = original.methods.get(i);
        try {
            LoopRegions.Result r = LoopRegions.analyze(original, mn, kernels, classes);
            if (notes != null) {
                r.notes().forEach(notes);
            }
            if (r.regions().isEmpty()) {
                return false;
            }
            MethodNode target = out.methods.get(i);
            LoopRegions.rewrite(original, target, r.regions(), runtime);
            MethodNode framed = framed(out, target, classes);
            verify(out.name, framed);
            out.methods.set(i, framed);
            if (notes != null) {
                for (LoopRegions.Region g : r.regions()) {
                    notes.accept(LoopRegions.describe(original, mn, g));
                }
            }
            return true;
        } catch (AnalyzerException | RuntimeException e) {
            // the method keeps its original code (out still holds it unless the set above ran, which is last)
            out.methods.set(i, copy(mn));
            warn.accept("could not wrap the loops of " + original.name.replace('/', '.') + "." + mn.name + " in data"
                    + " regions (" + e + "); their calls move their data as written");
            return false;
        }
    }

    private static MethodNode copy(MethodNode mn) {
        ClassNode c = new ClassNode();
        c.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "T", null, "java/lang/Object", null);
        mn.accept(c);
        return c.methods.get(0);
    }

    /** The method with frames and maximums computed afresh, through a class of its own. */
    private static MethodNode framed(ClassNode owner, MethodNode mn, Inliner.ClassSource classes) {
        ClassWriter w = new Hierarchy(classes);
        w.visit(owner.version < Opcodes.V1_7 ? Opcodes.V1_7 : owner.version, owner.access, owner.name, owner.signature,
                owner.superName, owner.interfaces.toArray(new String[0]));
        mn.accept(w);
        w.visitEnd();
        ClassNode back = new ClassNode();
        new ClassReader(w.toByteArray()).accept(back, 0);
        return back.methods.get(0);
    }

    /** A last check that the rewritten method is well formed (operand stack and locals), before it is loaded. */
    private static void verify(String owner, MethodNode mn) throws AnalyzerException {
        new Analyzer<>(new BasicInterpreter()).analyze(owner, mn);
    }

    public static boolean kernels(MethodNode mn) {
        for (List<AnnotationNode> list : java.util.Arrays.asList(mn.visibleAnnotations, mn.invisibleAnnotations)) {
            if (list != null) {
                for (AnnotationNode a : list) {
                    if (KERNELS.equals(a.desc)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean contains(byte[] bytes, byte[] mark) {
        outer:
        for (int i = 0; i + mark.length <= bytes.length; i++) {
            for (int k = 0; k < mark.length; k++) {
                if (bytes[i + k] != mark[k]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** A class file of the platform (java.base and the other modules), or null. */
    static byte[] platform(String internalName) {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * A class writer that computes frames, finding common super classes from class files rather than by loading
     * classes (a class being transformed must not load others).
     */
    static final class Hierarchy extends ClassWriter {
        private final Inliner.ClassSource classes;

        Hierarchy(Inliner.ClassSource classes) {
            super(ClassWriter.COMPUTE_FRAMES);
            this.classes = classes;
        }

        @Override
        protected String getCommonSuperClass(String a, String b) {
            List<String> up = supers(a);
            List<String> other = supers(b);
            if (up == null || other == null) {
                // an interface: the verifier treats it as Object
                return "java/lang/Object";
            }
            for (String s : other) {
                if (up.contains(s)) {
                    return s;
                }
            }
            return "java/lang/Object";
        }

        /**
         * {@code c} and its super classes, nearest first; null when {@code c} is an interface. A class file that cannot
         * be found fails the rewrite (the class then loads unchanged): a guessed frame could fail verification.
         */
        private List<String> supers(String c) {
            List<String> out = new ArrayList<>();
            String cur = c;
            while (cur != null) {
                out.add(cur);
                if (cur.equals("java/lang/Object")) {
                    return out;
                }
                byte[] bytes = classes.bytes(cur);
                if (bytes == null) {
                    bytes = platform(cur);
                }
                if (bytes == null) {
                    throw new IllegalStateException("the class file of " + cur.replace('/', '.') + " cannot be read to"
                            + " compute the rewritten method's frames");
                }
                ClassReader r = new ClassReader(bytes);
                if ((r.getAccess() & Opcodes.ACC_INTERFACE) != 0) {
                    return null;
                }
                cur = r.getSuperName();
            }
            return out;
        }
    }
}
