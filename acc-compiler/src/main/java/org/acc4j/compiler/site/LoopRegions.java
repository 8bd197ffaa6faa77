package org.acc4j.compiler.site;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.frontend.Inliner;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;

/**
 * Implicit data regions around host loops that call {@code @Kernels} methods. In
 * <pre>
 *   for (int s = 0; s &lt; steps; s++) {
 *       step(u, next, n);                     // a @Kernels method
 *       double[][] t = u; u = next; next = t;
 *   }
 * </pre>
 * each call would take both arrays to the device and back. When nothing else in the loop can see the arrays'
 * elements, the loop is wrapped in a data region instead: the arrays passed to the calls from locals are copied to
 * the device before the loop ({@code copy}, counted in the present table as a {@code @Data} region counts them) and
 * back when control leaves it, by any exit, an exception included. The calls inside then find them present.
 *
 * <p>A loop qualifies when, in its body:
 * <ul>
 *   <li>every call is to a {@code @Kernels} method that cannot be overridden and has no async clause, or to a
 *       method of the platform that cannot touch an application array ({@code Math}, the boxes, {@code String},
 *       {@code StringBuilder}, printing, the clocks), given no array;</li>
 *   <li>no row of a two-dimensional array that may be one of them is replaced on the host, and no array that may
 *       be one of them is stored into a field or another array, and no lock or volatile field
 *       is written: with no synchronisation, no other thread can rightly look at the arrays before the loop
 *       ends;</li>
 *   <li>the arrays passed to the calls come from locals that the loop only assigns from each other (the usual
 *       swap), so that the values held at the loop's entry are the only arrays the calls can receive.</li>
 * </ul>
 * An array passed to a call from anything else (a field, an allocation in the loop) is not part of the region:
 * that call moves it as before.
 *
 * <p>The host may read and write elements of the region's arrays in the loop. Each element load or store through a
 * reference that may be one of them or one of their rows (its element type is theirs, and it is not an array the
 * loop allocated) gets a call of {@link #READ} or {@link #WRITE} before it, and each {@code @Kernels} call one of
 * {@link #CALL}: the runtime copies an array (a row of a two-dimensional one) to the host before the host first looks
 * at it after a kernel, and the elements the host wrote (a window per array or row) to the device before the next
 * kernel. Copies of whole
 * arrays through the platform ({@code System.arraycopy}, {@code Arrays.fill}) are calls acc4j does not look into:
 * such a loop gets no region. The runtime makes the region only when every {@code @Kernels} method the loop
 * calls was rewritten for the device; otherwise the loop runs as written.
 */
public final class LoopRegions {
    /**
     * Entry of the runtime: {@code (Class caller, String where, String callees, String fields, Object[] values) ->
     * token}: {@code values} holds the region's arrays, then the objects whose array fields enter it;
     * {@code fields} is {@code "T1:a,b;T2:c|S1:d"}: the classes declaring those objects' fields with the fields (the
     * array fields the called methods read), then the class whose static array fields enter (internal names).
     */
    public static final String ENTER = "enterLoopData";
    public static final String ENTER_DESC = "(Ljava/lang/Class;Ljava/lang/String;Ljava/lang/String;Ljava/lang/String;"
            + "[Ljava/lang/Object;)Ljava/lang/Object;";
    /** Exit of the runtime: {@code (Object token)}, idempotent. */
    public static final String EXIT = "exitLoopData";
    public static final String EXIT_DESC = "(Ljava/lang/Object;)V";
    /**
     * Before the host reads an element of an array that may be one of the region's: {@code (Object array, Object
     * token)}; brings the host copy up to date when a kernel may have changed the device copy since.
     */
    public static final String READ = "loopRead";
    /**
     * Before the host writes an element of an array that may be one of the region's: {@code (Object array, int index,
     * Object token)}; marks the element for a copy to the device before the next call.
     */
    public static final String WRITE = "loopWrite";
    public static final String READ_DESC = "(Ljava/lang/Object;Ljava/lang/Object;)V";
    public static final String WRITE_DESC = "(Ljava/lang/Object;ILjava/lang/Object;)V";
    /** Before each {@code @Kernels} call in the loop: {@code (Object token)}; copies arrays the host wrote to the device. */
    public static final String CALL = "loopCall";
    public static final String CALL_DESC = "(Ljava/lang/Object;)V";

    private LoopRegions() {
    }

    /** How a loop's calls are told apart: the {@code @Kernels} methods, read from class files. */
    public interface Kernels {
        /** What {@code owner.name desc} is, when it is a {@code @Kernels} method; null otherwise. */
        Callee find(String owner, String name, String desc);
    }

    /**
     * A {@code @Kernels} method.
     *
     * @param async        whether it has an async clause (its calls then do not wait, and are not region calls)
     * @param overridable  whether a call through {@code invokevirtual} may reach another method
     */
    public record Callee(boolean async, boolean overridable) {
    }

    /**
     * A loop to wrap: its header and body (instruction indices); the locals whose arrays enter the region
     * ({@code slots}); the locals holding objects whose array fields enter it ({@code objects}, with the classes that
     * declare those fields, {@code objectTypes}); the classes whose static array fields enter it ({@code statics});
     * the host's element loads and stores in the body through an array that may be one of the region's
     * ({@code accesses}, instruction indices), each given a call of {@link #READ} or {@link #WRITE}.
     */
    public record Region(int header, BitSet body, int[] slots, int[] objects, String[] objectTypes,
                         List<String> statics, String[] names, int line, List<String> callees, BitSet accesses) {
    }

    /** What the analysis found in one method: the loops to wrap, and a line for each loop with calls that is not. */
    public record Result(List<Region> regions, List<String> notes) {
    }

    /** {@link Kernels} over class files from a source, each read once. */
    public static Kernels fromClassFiles(Inliner.ClassSource classes) {
        Map<String, ClassNode> seen = new HashMap<>();
        return (owner, name, desc) -> {
            if (HostEffects.platform(owner) || owner.startsWith("org/acc4j/")) {
                return null;
            }
            ClassNode cn = seen.computeIfAbsent(owner, o -> {
                byte[] b = classes.bytes(o);
                if (b == null || !ClassRewriter.mentionsKernels(b)) {
                    return new ClassNode();
                }
                ClassNode n = new ClassNode();
                new ClassReader(b).accept(n, ClassReader.SKIP_CODE);
                return n;
            });
            return callee(cn, name, desc);
        };
    }

    /** {@code others}, answering for the methods of {@code cn} from {@code cn} itself (its file may not be readable). */
    public static Kernels withClass(ClassNode cn, Kernels others) {
        return (owner, name, desc) -> {
            if (!owner.equals(cn.name)) {
                return others == null ? null : others.find(owner, name, desc);
            }
            return callee(cn, name, desc);
        };
    }

    /** {@code name desc} of {@code cn} as a {@link Callee}, or null when it is not a {@code @Kernels} method. */
    private static Callee callee(ClassNode cn, String name, String desc) {
        if (cn.methods == null) {
            return null;
        }
        for (MethodNode m : cn.methods) {
            if (m.name.equals(name) && m.desc.equals(desc) && ClassRewriter.kernels(m)) {
                boolean fixed = (m.access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL)) != 0
                        || (cn.access & Opcodes.ACC_FINAL) != 0;
                return new Callee(async(m), !fixed);
            }
        }
        return null;
    }

    private static boolean async(MethodNode m) {
        for (List<AnnotationNode> list : java.util.Arrays.asList(m.visibleAnnotations, m.invisibleAnnotations)) {
            if (list == null) {
                continue;
            }
            for (AnnotationNode a : list) {
                if (ClassRewriter.KERNELS.equals(a.desc) && a.values != null) {
                    for (int i = 0; i + 1 < a.values.size(); i += 2) {
                        Object v = a.values.get(i + 1);
                        if ("async".equals(a.values.get(i)) && v instanceof Integer q && q != org.acc4j.Acc.ASYNC_SYNC
                                || "asyncParam".equals(a.values.get(i)) && v instanceof String s && !s.isEmpty()) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** Whether a method calls a {@code @Kernels} method at all (a fast test before the analysis). */
    public static boolean callsKernels(MethodNode mn, Kernels kernels) {
        for (AbstractInsnNode i = mn.instructions.getFirst(); i != null; i = i.getNext()) {
            if (i instanceof MethodInsnNode m && kernels.find(m.owner, m.name, m.desc) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a class file may call a {@code @Kernels} method of another class: it names, as the owner of a method
     * it refers to, a class that {@code kernelClass} accepts. Reads the constant pool only.
     */
    public static boolean mayCallKernels(byte[] bytes, java.util.function.Predicate<String> kernelClass) {
        ClassReader r = new ClassReader(bytes);
        char[] buf = new char[r.getMaxStringLength()];
        for (int i = 1; i < r.getItemCount(); i++) {
            int at = r.getItem(i);
            if (at == 0) {
                continue;
            }
            int tag = bytes[at - 1];
            if (tag == 10 || tag == 11) {
                String owner = r.readClass(at, buf);
                if (owner != null && !owner.startsWith("[") && kernelClass.test(owner)) {
                    return true;
                }
            }
        }
        return false;
    }

    // ------------------------------------------------------------------ analysis

    /** The loops of a method to wrap, outermost first; inner loops are tried where an outer one does not qualify. */
    public static Result analyze(ClassNode cn, MethodNode mn, Kernels kernels, Inliner.ClassSource classes)
            throws AnalyzerException {
        Flow flow = Flow.of(cn.name, mn);
        List<Region> regions = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Deque<Flow.Loop> work = new ArrayDeque<>(flow.roots);
        while (!work.isEmpty()) {
            Flow.Loop loop = work.poll();
            BitSet body = instructions(flow, loop);
            if (!callsKernel(flow, body, kernels)) {
                continue;
            }
            LoopCheck.Check c = new LoopCheck.Check(cn, mn, flow, loop, body, kernels, classes);
            String why = c.run();
            if (why == null) {
                regions.add(c.region());
            } else {
                notes.add(where(cn, mn, c.line) + ": no implicit data region: " + why);
                for (int k = loop.inner.size() - 1; k >= 0; k--) {
                    work.addFirst(loop.inner.get(k));
                }
            }
        }
        regions.sort((a, b) -> Integer.compare(a.header(), b.header()));
        return new Result(regions, notes);
    }

    /** The report's line for a loop that gets a region. */
    public static String describe(ClassNode cn, MethodNode mn, Region r) {
        String base = where(cn, mn, r.line()) + ": an implicit data region keeps " + String.join(", ", r.names())
                + " on the device across its calls";
        if (r.accesses().isEmpty()) {
            return base;
        }
        java.util.TreeSet<Integer> reads = new java.util.TreeSet<>();
        java.util.TreeSet<Integer> writes = new java.util.TreeSet<>();
        for (int i = r.accesses().nextSetBit(0); i >= 0; i = r.accesses().nextSetBit(i + 1)) {
            int op = mn.instructions.get(i).getOpcode();
            (op >= Opcodes.IASTORE && op <= Opcodes.SASTORE ? writes : reads).add(LoopCheck.lineAt(mn, i));
        }
        return base + "; the host's element " + (reads.isEmpty() ? "" : "reads (" + lines(reads) + ")")
                + (reads.isEmpty() || writes.isEmpty() ? "" : " and ")
                + (writes.isEmpty() ? "" : "writes (" + lines(writes) + ")")
                + " are kept coherent: an array or row a kernel may have changed is copied to the host before it is read,"
                + " the elements written go to the device before the next call";
    }

    private static String lines(java.util.Set<Integer> lines) {
        return (lines.size() == 1 ? "line " : "lines ") + String.join(", ", lines.stream().map(String::valueOf).toList());
    }

    /** "Owner.method, the loop at line N". */
    static String where(ClassNode cn, MethodNode mn, int line) {
        String simple = cn.name.substring(cn.name.lastIndexOf('/') + 1);
        return simple + "." + mn.name + (line > 0 ? ", the loop at line " + line : ", a loop");
    }

    private static BitSet instructions(Flow flow, Flow.Loop loop) {
        BitSet insns = new BitSet();
        for (int b = loop.body.nextSetBit(0); b >= 0; b = loop.body.nextSetBit(b + 1)) {
            Flow.Block block = flow.blocks.get(b);
            insns.set(block.start, block.end);
        }
        return insns;
    }

    private static boolean callsKernel(Flow flow, BitSet body, Kernels kernels) {
        for (int i = body.nextSetBit(0); i >= 0; i = body.nextSetBit(i + 1)) {
            if (flow.method.instructions.get(i) instanceof MethodInsnNode m
                    && kernels.find(m.owner, m.name, m.desc) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Wraps each region's loop of {@code mn} (as {@link #analyze} found them, on this method unchanged since): a call
     * of {@code runtime}'s {@link #ENTER} where control enters the loop, one of {@link #EXIT} on every way out.
     */
    public static void rewrite(ClassNode cn, MethodNode mn, List<Region> regions, String runtime) {
        LoopWrap.rewrite(cn, mn, regions, runtime);
    }
}
