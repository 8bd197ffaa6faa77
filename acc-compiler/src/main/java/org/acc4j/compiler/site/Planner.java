package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.Diagnostic;
import org.acc4j.compiler.frontend.Inliner;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableAnnotationNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.ParameterNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * Finds the loop nests of a {@code @Kernels} method and decides which become launch sites, the way an OpenACC
 * compiler outlines a compute region from its host function.
 *
 * <p>The loops are taken from the outside in. A loop that can be cut out of the method (one entry, one exit, no
 * return or handler inside, an empty stack around it) is outlined into a synthetic method whose parameters are the
 * locals live into it, and compiled: if it compiles to a kernel, it is a nest with a device path. Otherwise, a loop
 * with loops inside is host code (a time loop, a convergence loop, a repetition loop) and its inner loops are
 * considered in turn; a loop without, or whose inner loops all stay on the host, is a nest that stays on the host,
 * with every reason found. Host code between the sites is analysed for what it does to arrays ({@link HostEffects}),
 * so that the runtime moves an array only where host code needs it.
 */
public final class Planner {
    /** The compute capability nests are compiled for when the plan is made (the runtime recompiles for others). */
    public static final int PLAN_SM = 90;

    private final ClassNode owner;
    private final MethodNode method;
    private final Inliner.ClassSource classes;
    private final Flow flow;
    private final ClassNode compileClass;
    private final List<MethodPlan.Nest> nests = new ArrayList<>();
    private final List<MethodPlan.Site> sites = new ArrayList<>();
    /** Per site: its loop's instruction range, header and exit, in the original method. */
    private final List<int[]> ranges = new ArrayList<>();

    private Planner(ClassNode owner, MethodNode method, Inliner.ClassSource classes, Flow flow) {
        this.owner = owner;
        this.method = method;
        this.classes = classes;
        this.flow = flow;
        this.compileClass = new ClassNode();
        compileClass.version = owner.version;
        compileClass.access = owner.access;
        compileClass.name = owner.name;
        compileClass.superName = owner.superName;
        compileClass.interfaces = owner.interfaces;
        compileClass.sourceFile = owner.sourceFile;
        compileClass.fields = owner.fields;
        compileClass.methods = new ArrayList<>(owner.methods);
        compileClass.innerClasses = owner.innerClasses;
        compileClass.nestHostClass = owner.nestHostClass;
        compileClass.nestMembers = owner.nestMembers;
    }

    /**
     * Plans the first method named {@code method} in the class file {@code classFile}: the entry for callers that see
     * no ASM types (the agent's jar relocates them).
     *
     * @throws AnalyzerException if the bytecode does not verify
     * @throws IllegalArgumentException if the class has no method of that name
     */
    public static MethodPlan plan(byte[] classFile, String method, Inliner.ClassSource classes)
            throws AnalyzerException {
        ClassNode cn = new ClassNode();
        new org.objectweb.asm.ClassReader(classFile).accept(cn, 0);
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals(method)) {
                return plan(cn, mn, classes);
            }
        }
        throw new IllegalArgumentException("no method " + method + " in " + cn.name);
    }

    /**
     * Plans method {@code method} of class {@code owner}; neither is changed.
     *
     * @throws AnalyzerException if the bytecode does not verify
     */
    public static MethodPlan plan(ClassNode owner, MethodNode method, Inliner.ClassSource classes)
            throws AnalyzerException {
        Planner p = new Planner(owner, method, classes, Flow.of(owner.name, method));
        Clauses clauses = Clauses.of(owner, method);
        // a method with per-call clauses has launch sites, where the clauses are followed (or refused)
        boolean async = isAsync(method) && clauses.equals(Clauses.NONE);
        for (Flow.Loop l : p.flow.roots) {
            p.select(l);
        }
        HostAccesses accesses = new HostAccesses(p.flow, p.ranges);
        for (int k = 0; k < p.sites.size(); k++) {
            p.sites.set(k, p.withEffects(p.sites.get(k), accesses.exact));
        }
        List<Integer> entryHandles = new ArrayList<>();
        List<Effect> entry = List.of();
        if (!p.sites.isEmpty()) {
            HostEffects host = new HostEffects(p.flow, owner.name, p::localName, accesses.exact);
            Set<Effect> e = host.from(0, p::entersSite);
            entry = p.bind(e, new ArrayList<>(), entryHandles);
        }
        return new MethodPlan(owner.name, method.name, method.desc, owner.sourceFile,
                (method.access & Opcodes.ACC_STATIC) != 0, List.copyOf(p.nests), List.copyOf(p.sites), entry,
                entryHandles, p.compileClass, async, annotated(method, "Lorg/acc4j/Data;"),
                clauses, p.sites.isEmpty() ? List.of() : List.copyOf(accesses.accesses));
    }

    static boolean annotated(MethodNode mn, String desc) {
        for (List<AnnotationNode> list : java.util.Arrays.asList(mn.visibleAnnotations, mn.invisibleAnnotations)) {
            if (list != null && list.stream().anyMatch(a -> desc.equals(a.desc))) {
                return true;
            }
        }
        return false;
    }

    static boolean isAsync(MethodNode mn) {
        for (List<AnnotationNode> list : java.util.Arrays.asList(mn.visibleAnnotations, mn.invisibleAnnotations)) {
            if (list == null) {
                continue;
            }
            for (AnnotationNode a : list) {
                if ("Lorg/acc4j/Kernels;".equals(a.desc) && a.values != null) {
                    for (int i = 0; i + 1 < a.values.size(); i += 2) {
                        Object v = a.values.get(i + 1);
                        if ("async".equals(a.values.get(i)) && v instanceof Integer q && q != org.acc4j.Acc.ASYNC_SYNC) {
                            return true;
                        }
                        if ("asyncParam".equals(a.values.get(i)) && v instanceof String s && !s.isEmpty()) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- which loops are nests

    /** Decides loop {@code l}: a site, host code around nests, or a nest on the host; returns whether it offloads anything. */
    private boolean select(Flow.Loop l) {
        int line = lineOf(l.header.start);
        List<String> reasons = new ArrayList<>();
        Cut cut = cut(l, reasons);
        Compiler.Result compiled = null;
        if (cut != null) {
            compiled = compile(cut, reasons);
            if (compiled instanceof Compiler.Offload) {
                addSite(l, cut, (Compiler.Offload) compiled, line);
                return true;
            }
        }
        int before = nests.size();
        int sitesBefore = sites.size();
        boolean any = false;
        for (Flow.Loop inner : l.inner) {
            any |= select(inner);
        }
        if (any) {
            return true;
        }
        // nothing inside offloads: report the loop as one nest on the host, with its own reasons
        while (nests.size() > before) {
            nests.remove(nests.size() - 1);
        }
        while (sites.size() > sitesBefore) {
            sites.remove(sites.size() - 1);
        }
        nests.add(new MethodPlan.Nest(line, false, List.copyOf(reasons), -1, null, null, List.of()));
        return false;
    }

    /** A loop cut out of the method: where it is, and the synthetic method that holds it. */
    private record Cut(int first, int last, int header, int exit, MethodNode synthetic, List<MethodPlan.Local> liveIns,
                       List<MethodPlan.Local> liveOuts, int shift) {
    }

    /** The loop as a synthetic method, or null with the reason in {@code reasons}. */
    private Cut cut(Flow.Loop l, List<String> reasons) {
        int first = l.first;
        int last = l.last;
        int h = l.header.start;
        // the loop's initialisation (i = k + 1) comes along, so that the compiler sees its lower bound
        int init = h == first ? initStart(h) : -1;
        if (init >= 0) {
            first = init;
            h = init;
        }
        // the range may hold blocks that are not in the loop (a throw); they must not leave it
        int exit = -1;
        for (int i = first; i <= last; i++) {
            if (!flow.reachable(i)) {
                continue;
            }
            int op = flow.method.instructions.get(i).getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                reasons.add(at(i) + "a return inside the loop (the loop runs on the host)");
                return null;
            }
            if (op == Opcodes.JSR || op == Opcodes.RET || op == Opcodes.MONITORENTER || op == Opcodes.MONITOREXIT) {
                reasons.add(at(i) + (op == Opcodes.JSR || op == Opcodes.RET ? "a subroutine (jsr)" : "a synchronized block"));
                return null;
            }
            BitSet next = flow.next[i];
            for (int s = next.nextSetBit(0); s >= 0; s = next.nextSetBit(s + 1)) {
                if (s < first || s > last) {
                    if (exit >= 0 && exit != s) {
                        reasons.add(at(i) + "a loop left for more than one place (break out of an outer loop, or a"
                                + " labelled continue)");
                        return null;
                    }
                    exit = s;
                }
            }
        }
        if (exit < 0) {
            reasons.add(at(h) + "a loop that is never left but by return or throw");
            return null;
        }
        for (int i = 0; i < flow.size; i++) {
            if (i >= first && i <= last || !flow.reachable(i)) {
                continue;
            }
            BitSet next = flow.next[i];
            for (int s = next.nextSetBit(first); s >= 0 && s <= last; s = next.nextSetBit(s + 1)) {
                if (s != h) {
                    reasons.add(at(s) + "a loop entered other than at its start");
                    return null;
                }
            }
        }
        for (TryCatchBlockNode t : flow.method.tryCatchBlocks) {
            int hi = flow.index(t.handler);
            int ts = flow.index(t.start);
            int te = flow.index(t.end);
            if (hi >= first && hi <= last || (ts > first && ts <= last) || (te > first && te <= last)) {
                reasons.add(at(Math.max(first, Math.min(ts, last))) + "a try/catch inside the loop");
                return null;
            }
        }
        Frame<BasicValue> fh = flow.frames[h];
        Frame<BasicValue> fx = flow.frames[exit];
        if (fh == null || fx == null || fh.getStackSize() != 0 || fx.getStackSize() != 0) {
            reasons.add(at(h) + "a loop inside an expression");
            return null;
        }
        // live-ins: read inside, or written inside and live after (the loop may leave the value it found: a search's
        // index), and live on entry; live-outs: written inside and live after
        BitSet readIn = new BitSet();
        BitSet written = new BitSet();
        for (int i = first; i <= last; i++) {
            AbstractInsnNode insn = flow.method.instructions.get(i);
            int r = Flow.read(insn);
            if (r >= 0) {
                readIn.set(r);
            }
            int w = Flow.written(insn);
            if (w >= 0) {
                written.set(w);
            }
        }
        boolean isStatic = (method.access & Opcodes.ACC_STATIC) != 0;
        BitSet in = (BitSet) flow.liveIn[h].clone();
        BitSet passedThrough = (BitSet) written.clone();
        passedThrough.and(flow.liveIn[exit]);
        passedThrough.or(readIn);
        in.and(passedThrough);
        if (!isStatic) {
            in.clear(0);
        }
        BitSet out = (BitSet) flow.liveIn[exit].clone();
        out.and(written);
        List<MethodPlan.Local> liveIns = new ArrayList<>();
        for (int s = in.nextSetBit(0); s >= 0; s = in.nextSetBit(s + 1)) {
            String d = descriptor(fh.getLocal(s), s, h);
            if (d == null) {
                reasons.add(at(h) + "the variable " + localName(s, h) + " holds values of different types");
                return null;
            }
            liveIns.add(new MethodPlan.Local(s, d, localName(s, h)));
        }
        List<MethodPlan.Local> liveOuts = new ArrayList<>();
        for (int s = out.nextSetBit(0); s >= 0; s = out.nextSetBit(s + 1)) {
            BasicValue v = fx.getLocal(s);
            String d = descriptor(v, s, exit);
            if (d == null || d.startsWith("L") || d.startsWith("[")) {
                reasons.add(at(h) + "the loop sets the reference variable " + localName(s, exit)
                        + ", which is read after it");
                return null;
            }
            liveOuts.add(new MethodPlan.Local(s, d, localName(s, exit)));
        }
        int shift = 0;
        for (MethodPlan.Local p : liveIns) {
            shift += Type.getType(p.descriptor()).getSize();
        }
        MethodNode synthetic = outline(first, last, h, liveIns, shift, isStatic);
        return new Cut(first, last, h, exit, synthetic, liveIns, liveOuts, shift);
    }

    /**
     * The start of the statement that initialises the loop's index right before its header ({@code i = k + 1;}),
     * or -1: a store to a local the header reads, of a value computed without calls, branches or side effects.
     */
    private int initStart(int header) {
        int store = header - 1;
        while (store >= 0 && flow.method.instructions.get(store).getOpcode() < 0) {
            if (flow.method.instructions.get(store) instanceof LabelNode && flow.blockAt[store + 1] != null
                    && flow.blockAt[store] != flow.blockAt[header]) {
                break;
            }
            store--;
        }
        if (store < 0 || !flow.reachable(store)) {
            return -1;
        }
        AbstractInsnNode st = flow.method.instructions.get(store);
        int slot = Flow.written(st);
        if (slot < 0 || st.getOpcode() == Opcodes.ASTORE || st instanceof org.objectweb.asm.tree.IincInsnNode) {
            return -1;
        }
        boolean readByHeader = false;
        for (int i = header; i < flow.blockAt[header].end; i++) {
            readByHeader |= Flow.read(flow.method.instructions.get(i)) == slot;
        }
        if (!readByHeader) {
            return -1;
        }
        int s = store;
        while (true) {
            if (flow.frames[s] == null) {
                return -1;
            }
            if (flow.frames[s].getStackSize() == 0 && s < store) {
                break;
            }
            s--;
            if (s < 0 || flow.blockAt[s] != flow.blockAt[store] && flow.blockAt[s] != null) {
                return -1;
            }
            AbstractInsnNode i = flow.method.instructions.get(s);
            int op = i.getOpcode();
            if (op >= 0 && !(i instanceof VarInsnNode && op <= Opcodes.ALOAD || op <= Opcodes.SALOAD
                    || op >= Opcodes.IADD && op <= Opcodes.LXOR || op >= Opcodes.I2L && op <= Opcodes.I2S
                    || op == Opcodes.GETFIELD || op == Opcodes.GETSTATIC || op == Opcodes.ARRAYLENGTH
                    || op == Opcodes.DUP)) {
                return -1;
            }
        }
        // the statement's first instruction, after any label or line entry of its own
        return flow.frames[s].getStackSize() == 0 ? s : -1;
    }

    /** A local's descriptor from its frame value (its declared type where the frame lost it), or null. */
    private String descriptor(BasicValue v, int slot, int insn) {
        if (v == null || v == BasicValue.UNINITIALIZED_VALUE || v.getType() == null) {
            return null;
        }
        Type t = v.getType();
        if (Flow.Typed.isReference(t)) {
            if (t.getSort() == Type.OBJECT && t.getInternalName().equals("java/lang/Object")) {
                LocalVariableNode lv = variable(slot, insn);
                if (lv != null) {
                    return lv.desc;
                }
            }
            return "null".equals(t.getInternalName()) ? "Ljava/lang/Object;" : t.getDescriptor();
        }
        return t.getDescriptor();
    }

    /** The loop's bytecode as a synthetic method of the same class: live-ins as parameters, then the loop. */
    private MethodNode outline(int first, int last, int h, List<MethodPlan.Local> liveIns, int shift, boolean isStatic) {
        StringBuilder desc = new StringBuilder("(");
        for (MethodPlan.Local p : liveIns) {
            desc.append(p.descriptor());
        }
        desc.append(")V");
        String name = method.name + "$L" + lineOf(h);
        for (int k = 2; taken(name, desc.toString()); k++) {
            name = method.name + "$L" + lineOf(h) + "_" + k;
        }
        MethodNode m = new MethodNode(Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC | (isStatic ? Opcodes.ACC_STATIC : 0),
                name, desc.toString(), null, null);
        List<Object> flags = new ArrayList<>();
        for (String flag : List.of("serial", "relaxed")) {
            if (Compiler.flag(method, flag)) {
                flags.addAll(List.of(flag, Boolean.TRUE));
            }
        }
        if (!flags.isEmpty()) {
            // the nest keeps the method's serial and relaxed clauses, wherever it is compiled
            AnnotationNode kernels = new AnnotationNode("Lorg/acc4j/Kernels;");
            kernels.values = flags;
            m.visibleAnnotations = new ArrayList<>(List.of(kernels));
        }
        m.parameters = new ArrayList<>();
        for (MethodPlan.Local p : liveIns) {
            m.parameters.add(new ParameterNode(p.name(), 0));
        }
        int base = isStatic ? 0 : 1;
        Map<LabelNode, LabelNode> labels = new HashMap<>();
        LabelNode start = new LabelNode();
        LabelNode end = new LabelNode();
        for (int i = 0; i < flow.size; i++) {
            if (flow.method.instructions.get(i) instanceof LabelNode l) {
                labels.put(l, i >= first && i <= last ? new LabelNode() : end);
            }
        }
        m.instructions.add(start);
        m.instructions.add(new LineNumberNode(lineOf(h), start));
        int param = base;
        for (MethodPlan.Local p : liveIns) {
            Type t = Type.getType(p.descriptor());
            m.instructions.add(new VarInsnNode(t.getOpcode(Opcodes.ILOAD), param));
            m.instructions.add(new VarInsnNode(t.getOpcode(Opcodes.ISTORE), remap(p.slot(), shift, isStatic)));
            param += t.getSize();
        }
        if (h != first) {
            m.instructions.add(new JumpInsnNode(Opcodes.GOTO, labels.get((LabelNode) flow.method.instructions.get(h))));
        }
        for (int i = first; i <= last; i++) {
            AbstractInsnNode insn = flow.method.instructions.get(i);
            if (insn.getType() == AbstractInsnNode.FRAME) {
                continue;
            }
            AbstractInsnNode copy = insn.clone(labels);
            if (copy instanceof VarInsnNode v) {
                v.var = remap(v.var, shift, isStatic);
            } else if (copy instanceof org.objectweb.asm.tree.IincInsnNode inc) {
                inc.var = remap(inc.var, shift, isStatic);
            }
            m.instructions.add(copy);
        }
        m.instructions.add(end);
        m.instructions.add(new InsnNode(Opcodes.RETURN));
        m.maxLocals = method.maxLocals + shift;
        m.maxStack = Math.max(method.maxStack, 2);
        m.tryCatchBlocks = new ArrayList<>();
        m.localVariables = new ArrayList<>();
        if (method.localVariables != null) {
            for (LocalVariableNode lv : method.localVariables) {
                int s = flow.index(lv.start);
                int e = flow.index(lv.end);
                if (e <= first || s > last) {
                    continue;
                }
                m.localVariables.add(new LocalVariableNode(lv.name, lv.desc, lv.signature,
                        s >= first ? labels.get(lv.start) : start, e <= last ? labels.get(lv.end) : end,
                        remap(lv.index, shift, isStatic)));
            }
        }
        m.visibleLocalVariableAnnotations = annotations(method.visibleLocalVariableAnnotations, first, last, labels,
                start, end, shift, isStatic);
        m.invisibleLocalVariableAnnotations = annotations(method.invisibleLocalVariableAnnotations, first, last, labels,
                start, end, shift, isStatic);
        return m;
    }

    private boolean taken(String name, String desc) {
        for (MethodNode m : compileClass.methods) {
            if (m.name.equals(name)) {
                return true;
            }
        }
        return false;
    }

    private List<LocalVariableAnnotationNode> annotations(List<LocalVariableAnnotationNode> list, int first, int last,
                                                          Map<LabelNode, LabelNode> labels, LabelNode start,
                                                          LabelNode end, int shift, boolean isStatic) {
        if (list == null) {
            return null;
        }
        List<LocalVariableAnnotationNode> out = new ArrayList<>();
        for (LocalVariableAnnotationNode a : list) {
            List<LabelNode> starts = new ArrayList<>();
            List<LabelNode> ends = new ArrayList<>();
            List<Integer> index = new ArrayList<>();
            for (int k = 0; k < a.index.size(); k++) {
                int s = flow.index(a.start.get(k));
                int e = flow.index(a.end.get(k));
                if (e <= first || s > last) {
                    continue;
                }
                starts.add(s >= first ? labels.get(a.start.get(k)) : start);
                ends.add(e <= last ? labels.get(a.end.get(k)) : end);
                index.add(remap(a.index.get(k), shift, isStatic));
            }
            if (!index.isEmpty()) {
                LocalVariableAnnotationNode c = new LocalVariableAnnotationNode(a.typeRef, a.typePath,
                        starts.toArray(new LabelNode[0]), ends.toArray(new LabelNode[0]),
                        index.stream().mapToInt(Integer::intValue).toArray(), a.desc);
                c.values = a.values;
                out.add(c);
            }
        }
        return out;
    }

    private static int remap(int slot, int shift, boolean isStatic) {
        return !isStatic && slot == 0 ? 0 : slot + shift;
    }

    /** Compiles a cut loop; on failure, its reasons. */
    private Compiler.Result compile(Cut cut, List<String> reasons) {
        List<Map.Entry<Integer, String>> outputs = new ArrayList<>();
        boolean isStatic = (method.access & Opcodes.ACC_STATIC) != 0;
        for (MethodPlan.Local o : cut.liveOuts()) {
            outputs.add(Map.entry(remap(o.slot(), cut.shift(), isStatic), o.descriptor()));
        }
        compileClass.methods.add(cut.synthetic());
        Compiler.Result r;
        try {
            r = Compiler.compile(compileClass, cut.synthetic(), PLAN_SM, classes, outputs);
        } catch (RuntimeException | StackOverflowError e) {
            r = new Compiler.Host(new Diagnostic(owner.name, method.name, owner.sourceFile, lineOf(cut.header()),
                    "an internal error of the compiler (" + e + ")"));
        }
        if (r instanceof Compiler.Host host) {
            compileClass.methods.remove(cut.synthetic());
            reasons.add(reason(host.reason()));
        }
        return r;
    }

    /** A diagnostic as the report words it: the line and the construct. */
    private String reason(Diagnostic d) {
        return (d.line() > 0 ? "line " + d.line() + ": " : "") + d.construct();
    }

    private void addSite(Flow.Loop l, Cut cut, Compiler.Offload compiled, int line) {
        int index = sites.size();
        ranges.add(new int[] {cut.first(), cut.last(), cut.header(), cut.exit()});
        var cm = compiled.method();
        String kernel = cm.kernels().isEmpty() ? null : cm.kernels().get(0).entry();
        String mapping = cm.kernels().isEmpty() ? null : cm.kernels().get(0).region().mapping().toString();
        List<String> notes = new ArrayList<>();
        for (String r : cm.report()) {
            notes.add(r.replaceFirst("^[^:]*(:\\d+)?: ", ""));
        }
        // what host code does to arrays is known once every site is: see withEffects
        sites.add(new MethodPlan.Site(index, line, cut.synthetic(), cut.liveIns(), cut.liveOuts(), List.of(),
                List.of(), List.of(), compiled, new int[] {cut.first(), cut.last(), cut.header(), cut.exit()}));
        nests.add(new MethodPlan.Nest(line, true, List.of(), index, kernel, mapping, List.copyOf(notes)));
    }

    /** The site with what host code does to arrays after it, and what it does when it runs on the host. */
    private MethodPlan.Site withEffects(MethodPlan.Site s, java.util.BitSet exact) throws AnalyzerException {
        int[] r = s.range();
        HostEffects host = new HostEffects(flow, owner.name, this::localName, exact);
        Set<Effect> after = host.from(r[3], this::entersSite);
        Set<Effect> onHost = host.from(r[2], (from, to) -> to < r[0] || to > r[1]);
        List<Integer> handles = new ArrayList<>();
        List<Effect> a = bind(after, s.liveIns(), handles);
        List<Effect> o = bind(onHost, s.liveIns(), handles);
        return new MethodPlan.Site(s.index(), s.line(), s.method(), s.liveIns(), s.liveOuts(), List.copyOf(handles), a, o,
                s.compiled(), r);
    }

    /** Whether the edge from instruction {@code from} to {@code to} enters a site (stops host code's analysis). */
    private boolean entersSite(int from, int to) {
        for (int[] r : ranges) {
            if (to == r[2] && (from < r[0] || from > r[1])) {
                return true;
            }
        }
        return false;
    }

    /**
     * The effects with each local they name bound to a value of the call: a live-in's own value, or a handle
     * added after the live-ins.
     */
    private List<Effect> bind(Set<Effect> effects, List<MethodPlan.Local> liveIns, List<Integer> handles) {
        List<Effect> out = new ArrayList<>();
        Set<Effect> seen = new LinkedHashSet<>();
        for (Effect e : effects) {
            Origin o = e.origin();
            if (o instanceof Origin.Local l) {
                o = new Origin.Local(l.slot(), value(l.slot(), liveIns, handles), l.name());
            } else if (o instanceof Origin.Field f && !f.isStatic()) {
                o = new Origin.Field(f.baseSlot(), value(f.baseSlot(), liveIns, handles), f.owner(), f.name(),
                        f.descriptor());
            }
            Effect b = new Effect(e.write(), o, e.deep());
            if (seen.add(b)) {
                out.add(b);
            }
        }
        return List.copyOf(out);
    }

    private static int value(int slot, List<MethodPlan.Local> liveIns, List<Integer> handles) {
        for (int i = 0; i < liveIns.size(); i++) {
            if (liveIns.get(i).slot() == slot) {
                return i;
            }
        }
        int k = handles.indexOf(slot);
        if (k < 0) {
            handles.add(slot);
            k = handles.size() - 1;
        }
        return liveIns.size() + k;
    }

    // ---------------------------------------------------------------- names and lines

    private int lineOf(int insn) {
        int line = 0;
        for (int i = 0; i <= insn && i < flow.size; i++) {
            if (flow.method.instructions.get(i) instanceof LineNumberNode ln) {
                line = ln.line;
            }
        }
        if (line == 0) {
            // a loop before any line entry: the next one
            for (int i = insn; i < flow.size; i++) {
                if (flow.method.instructions.get(i) instanceof LineNumberNode ln) {
                    return ln.line;
                }
            }
        }
        return line;
    }

    private String at(int insn) {
        int line = lineOf(insn);
        return line > 0 ? "line " + line + ": " : "";
    }

    private LocalVariableNode variable(int slot, int insn) {
        if (method.localVariables == null) {
            return null;
        }
        LocalVariableNode best = null;
        for (LocalVariableNode lv : method.localVariables) {
            if (lv.index == slot && flow.index(lv.start) <= insn && insn <= flow.index(lv.end)) {
                best = lv;
            }
        }
        return best;
    }

    /** A local's name at an instruction: from the local variable table, else from the parameters, else its slot. */
    String localName(int slot, int insn) {
        LocalVariableNode lv = variable(slot, insn);
        if (lv != null) {
            return lv.name;
        }
        boolean isStatic = (method.access & Opcodes.ACC_STATIC) != 0;
        if (!isStatic && slot == 0) {
            return "this";
        }
        Type[] args = Type.getArgumentTypes(method.desc);
        int s = isStatic ? 0 : 1;
        for (int i = 0; i < args.length; i++) {
            if (s == slot) {
                if (method.parameters != null && i < method.parameters.size() && method.parameters.get(i).name != null) {
                    return method.parameters.get(i).name;
                }
                return "arg" + i;
            }
            s += args[i].getSize();
        }
        return "v" + slot;
    }

}
