package org.acc4j.compiler.site;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.acc4j.compiler.frontend.Inliner;
import org.acc4j.compiler.site.LoopRegions.Callee;
import org.acc4j.compiler.site.LoopRegions.Kernels;
import org.acc4j.compiler.site.LoopRegions.Region;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.Interpreter;
import org.objectweb.asm.tree.analysis.Value;

/**
 * Whether one loop qualifies for an implicit data region ({@link LoopRegions}), and with which locals: an abstract
 * interpretation of the loop's body in which each reference is the set of locals whose values at the loop's entry
 * it may be, or an array from elsewhere. It runs to a fixed point over the body only, back edge included, so that
 * a swap of two locals makes each stand for both entry values.
 */
final class LoopCheck {
    private LoopCheck() {
    }

    /** Platform classes whose methods touch no array but those passed to them. */
    private static final Set<String> PURE_OWNERS = Set.of("java/lang/Math", "java/lang/StrictMath",
            "java/lang/Integer", "java/lang/Long", "java/lang/Double", "java/lang/Float", "java/lang/Short",
            "java/lang/Byte", "java/lang/Character", "java/lang/Boolean", "java/lang/String",
            "java/lang/StringBuilder", "java/io/PrintStream");
    /** Methods of the platform that read a clock. */
    private static final Set<String> CLOCKS = Set.of("java/lang/System.nanoTime", "java/lang/System.currentTimeMillis");
    /** Reference types whose values are never arrays of the application. */
    private static final Set<String> INERT = Set.of("java/lang/String", "java/lang/Integer", "java/lang/Long",
            "java/lang/Double", "java/lang/Float", "java/lang/Short", "java/lang/Byte", "java/lang/Character",
            "java/lang/Boolean", "java/lang/StringBuilder", "java/io/PrintStream");

    /** Whether a value of static type {@code t} may be an array. */
    private static boolean mayBeArray(Type t) {
        if (t.getSort() == Type.ARRAY) {
            return true;
        }
        if (t.getSort() != Type.OBJECT) {
            return false;
        }
        String n = t.getInternalName();
        return n.equals("java/lang/Object") || n.equals("java/lang/Cloneable") || n.equals("java/io/Serializable");
    }

    /**
     * A value of the loop body: the locals whose values at the loop's entry it may be ({@code slots}), or
     * ({@code other}) an array from anywhere else. Neither: a primitive, or an object that cannot be one of those
     * arrays (one allocated in the loop, a constant, a string).
     */
    record V(int size, Set<Integer> slots, boolean other) implements Value {
        static final V NONE = new V(1, Set.of(), false);
        static final V OTHER = new V(1, Set.of(), true);

        @Override
        public int getSize() {
            return size;
        }

        boolean known() {
            return !slots.isEmpty() || other;
        }
    }

    /** The checks of one loop. */
    static final class Check extends Interpreter<V> {
        private final ClassNode cn;
        private final MethodNode mn;
        private final Flow flow;
        private final Flow.Loop loop;
        private final BitSet body;
        private final Kernels kernels;
        private final Inliner.ClassSource classes;
        /** Every value an instruction saw as its array, stored value or arguments, over all visits. */
        private final Map<Integer, List<V>> seen = new HashMap<>();
        /** Class files of other classes, as read ({@link #node}). */
        private final Map<String, ClassNode> read = new HashMap<>();
        private int current;
        int line;
        private int[] slots;
        private int[] objects;
        private String[] objectTypes;
        private final List<String> statics = new ArrayList<>();
        private String[] names;
        private final Set<String> callees = new LinkedHashSet<>();
        /** The element loads and stores that get the runtime's hooks. */
        private final BitSet accesses = new BitSet();

        Check(ClassNode cn, MethodNode mn, Flow flow, Flow.Loop loop, BitSet body, Kernels kernels,
              Inliner.ClassSource classes) {
            super(Opcodes.ASM9);
            this.cn = cn;
            this.mn = mn;
            this.flow = flow;
            this.loop = loop;
            this.body = body;
            this.kernels = kernels;
            this.classes = classes;
            this.line = lineAt(mn, loop.header.start);
        }

        Region region() {
            return new Region(loop.header.start, body, slots, objects, objectTypes, List.copyOf(statics), names, line,
                    new ArrayList<>(callees), (BitSet) accesses.clone());
        }

        /** Null when the loop qualifies; otherwise why not. */
        String run() throws AnalyzerException {
            int h = loop.header.start;
            Frame<BasicValue> typed = flow.frames[h];
            if (typed.getStackSize() != 0) {
                return "values are on the operand stack where it starts";
            }
            for (TryCatchBlockNode t : mn.tryCatchBlocks) {
                if (mn.instructions.indexOf(t.handler) == h) {
                    return "its first instruction is an exception handler";
                }
            }
            String shape = handlers();
            if (shape != null) {
                return shape;
            }
            interpret(h, typed);
            // the calls: every one to a @Kernels method (its arrays) or an inert method of the platform
            Set<Integer> region = new TreeSet<>();
            for (int i = body.nextSetBit(0); i >= 0; i = body.nextSetBit(i + 1)) {
                AbstractInsnNode insn = mn.instructions.get(i);
                int op = insn.getOpcode();
                List<V> values = seen.getOrDefault(i, List.of());
                if (op == Opcodes.MONITORENTER || op == Opcodes.MONITOREXIT) {
                    return "it takes a lock (line " + lineAt(mn, i) + ")";
                }
                if (insn instanceof MethodInsnNode m) {
                    Callee k = kernels.find(m.owner, m.name, m.desc);
                    if (k != null) {
                        if (k.async()) {
                            return "it calls " + simple(m.owner) + "." + m.name + ", which has an async clause";
                        }
                        if (k.overridable() && op != Opcodes.INVOKESTATIC && op != Opcodes.INVOKESPECIAL) {
                            return "its call of " + simple(m.owner) + "." + m.name + " may reach an override that is"
                                    + " not @Kernels (make the method final, private or static)";
                        }
                        callees.add(m.owner + "." + m.name + m.desc);
                        continue;
                    }
                    if (m.owner.startsWith("[")) {
                        return "it copies an array (" + m.name + ", line " + lineAt(mn, i) + ")";
                    }
                    if (m.owner.equals("java/util/Arrays") || m.owner.equals("java/lang/System")
                            && m.name.equals("arraycopy")) {
                        return "it calls " + simple(m.owner) + "." + m.name + " (line " + lineAt(mn, i) + "): acc4j"
                                + " keeps element reads and writes of the region's arrays coherent, not whole-array"
                                + " copies (use a loop of element accesses)";
                    }
                    if (!PURE_OWNERS.contains(m.owner) && !CLOCKS.contains(m.owner + "." + m.name)) {
                        return "it calls " + simple(m.owner) + "." + m.name + " (line " + lineAt(mn, i)
                                + "), which acc4j does not look into";
                    }
                    String bad = arguments(params(m), values);
                    if (bad != null) {
                        return "it passes " + bad + " to " + simple(m.owner) + "." + m.name + " (line " + lineAt(mn, i)
                                + ")";
                    }
                } else if (insn instanceof InvokeDynamicInsnNode d) {
                    if (!"java/lang/invoke/StringConcatFactory".equals(d.bsm.getOwner())) {
                        return "it makes a lambda or calls through invokedynamic (line " + lineAt(mn, i) + ")";
                    }
                    String bad = arguments(Type.getArgumentTypes(d.desc), values);
                    if (bad != null) {
                        return "it turns " + bad + " into a string (line " + lineAt(mn, i) + ")";
                    }
                }
            }
            // the arrays of the calls' array parameters, the receivers of instance calls (their array fields), and the
            // classes of static calls; a call keeps the present table coherent for whatever else it receives (an
            // object holding arrays), as inside any data region
            Set<Integer> receivers = new TreeSet<>();
            Set<String> owners = new LinkedHashSet<>();
            Set<String> used = new LinkedHashSet<>();
            for (int i = body.nextSetBit(0); i >= 0; i = body.nextSetBit(i + 1)) {
                if (mn.instructions.get(i) instanceof MethodInsnNode m && kernels.find(m.owner, m.name, m.desc) != null) {
                    Type[] params = params(m);
                    List<V> values = seen.getOrDefault(i, List.of());
                    owners.add(m.owner);
                    used.addAll(fieldsUsed(m.owner, m.name, m.desc));
                    for (int k = 0; k < values.size(); k++) {
                        if (params[k % params.length].getSort() == Type.ARRAY) {
                            region.addAll(values.get(k).slots());
                        } else if (k % params.length == 0 && m.getOpcode() != Opcodes.INVOKESTATIC
                                && !values.get(k).other()) {
                            receivers.addAll(values.get(k).slots());
                        }
                    }
                }
            }
            // the region's arrays: locals holding primitive arrays of rank 1 or 2 at the header
            List<Integer> keep = new ArrayList<>();
            Set<Integer> kinds = new LinkedHashSet<>();
            for (int s : region) {
                Type t = s < typed.getLocals() ? typed.getLocal(s).getType() : null;
                if (t == null || t.getSort() != Type.ARRAY || t.getDimensions() > 2
                        || t.getElementType().getSort() > Type.DOUBLE) {
                    continue;
                }
                keep.add(s);
                kinds.add(t.getElementType().getSort());
                if (t.getDimensions() == 2) {
                    kinds.add(Type.ARRAY);
                }
            }
            // objects whose methods the loop calls: the array fields their declared classes have
            List<Integer> objs = new ArrayList<>();
            List<String> objTypes = new ArrayList<>();
            List<String> extraNames = new ArrayList<>();
            for (int s : receivers) {
                Type t = s < typed.getLocals() ? typed.getLocal(s).getType() : null;
                if (t == null || t.getSort() != Type.OBJECT || t.getInternalName().equals("null")) {
                    continue;
                }
                List<FieldNode> fs = arrayFields(t.getInternalName(), false);
                fs.removeIf(f -> !used.contains(f.name));
                if (fs.isEmpty()) {
                    continue;
                }
                objs.add(s);
                objTypes.add(t.getInternalName() + ":" + String.join(",", fs.stream().map(f -> f.name).toList()));
                String local = localName(mn, s, h);
                for (FieldNode f : fs) {
                    addKinds(kinds, Type.getType(f.desc));
                    extraNames.add((local.equals("this") ? "this" : local) + "." + f.name);
                }
            }
            // static array fields of the loop's own class, when it calls its own @Kernels methods (another class's
            // statics would be read before that class is initialised)
            if (owners.contains(cn.name)) {
                List<FieldNode> fs = arrayFields(cn.name, true);
                fs.removeIf(f -> !used.contains(cn.name + "." + f.name));
                if (!fs.isEmpty()) {
                    statics.add(cn.name + ":" + String.join(",", fs.stream().map(f -> f.name).toList()));
                    for (FieldNode f : fs) {
                        addKinds(kinds, Type.getType(f.desc));
                        extraNames.add(simple(cn.name) + "." + f.name);
                    }
                }
            }
            if (keep.isEmpty() && objs.isEmpty() && statics.isEmpty()) {
                return "no array passed to its calls is held in a local from before the loop";
            }
            Set<Integer> regionSlots = new LinkedHashSet<>(keep);
            // host reads and writes of elements (each gets the runtime's hook), stores of the arrays, writes of fields
            for (int i = body.nextSetBit(0); i >= 0; i = body.nextSetBit(i + 1)) {
                AbstractInsnNode insn = mn.instructions.get(i);
                int op = insn.getOpcode();
                List<V> values = seen.getOrDefault(i, List.of());
                if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD || op >= Opcodes.IASTORE && op <= Opcodes.SASTORE) {
                    boolean load = op <= Opcodes.SALOAD;
                    int kind = kind(load ? op : op - (Opcodes.IASTORE - Opcodes.IALOAD));
                    if (op == Opcodes.AALOAD) {
                        // a row reference: the device never changes which rows an array holds
                        continue;
                    }
                    for (int k = 0; k < values.size(); k += op == Opcodes.AASTORE ? 2 : 1) {
                        V array = values.get(k);
                        boolean named = array.slots().stream().anyMatch(regionSlots::contains);
                        boolean mayAlias = array.known() && (kinds.contains(kind)
                                || kind == Type.BYTE && kinds.contains(Type.BOOLEAN));
                        if (!named && !mayAlias) {
                            continue;
                        }
                        if (op == Opcodes.AASTORE) {
                            return "it replaces a row of " + (named ? names(mn, array.slots(), regionSlots,
                                    loop.header.start) : "an array that may be one of " + names(mn, regionSlots,
                                    regionSlots, loop.header.start)) + " on the host (line " + lineAt(mn, i) + ")";
                        }
                        accesses.set(i);
                    }
                }
                if (op == Opcodes.AASTORE && stored(i, 1)) {
                    return "it stores an array into an array (line " + lineAt(mn, i) + ")";
                }
                if (op == Opcodes.PUTFIELD || op == Opcodes.PUTSTATIC) {
                    FieldInsnNode f = (FieldInsnNode) insn;
                    if (stored(i, 0)) {
                        return "it stores an array into the field " + f.name + " (line " + lineAt(mn, i) + ")";
                    }
                    Boolean vol = isVolatile(f);
                    if (vol == null || vol) {
                        return "it writes the " + (vol == null ? "field " : "volatile field ") + f.name
                                + (vol == null ? ", whose class acc4j cannot read," : "") + " (line " + lineAt(mn, i)
                                + ")";
                    }
                }
            }
            slots = keep.stream().mapToInt(Integer::intValue).toArray();
            objects = objs.stream().mapToInt(Integer::intValue).toArray();
            objectTypes = objTypes.toArray(new String[0]);
            List<String> all = new ArrayList<>();
            for (int slot : slots) {
                all.add(localName(mn, slot, h));
            }
            all.addAll(extraNames);
            names = all.toArray(new String[0]);
            return null;
        }

        /**
         * The array fields a {@code @Kernels} method's own code reads: instance fields by name, static fields as
         * {@code owner.name}; empty when its class file cannot be read.
         */
        private Set<String> fieldsUsed(String owner, String name, String desc) {
            ClassNode node = node(owner);
            if (node == null) {
                return Set.of();
            }
            Set<String> out = new LinkedHashSet<>();
            for (MethodNode m : node.methods) {
                if (!m.name.equals(name) || !m.desc.equals(desc)) {
                    continue;
                }
                for (AbstractInsnNode i = m.instructions.getFirst(); i != null; i = i.getNext()) {
                    if (i instanceof FieldInsnNode f && f.desc.startsWith("[")) {
                        if (f.getOpcode() == Opcodes.GETFIELD) {
                            out.add(f.name);
                        } else if (f.getOpcode() == Opcodes.GETSTATIC) {
                            out.add(f.owner + "." + f.name);
                        }
                    }
                }
            }
            return out;
        }

        private static void addKinds(Set<Integer> kinds, Type t) {
            kinds.add(t.getElementType().getSort());
            if (t.getDimensions() == 2) {
                kinds.add(Type.ARRAY);
            }
        }

        /**
         * The fields of {@code owner} holding primitive arrays of rank 1 or 2: its static ones, or its instance ones
         * and those of its super classes (as far as their class files can be read).
         */
        private List<FieldNode> arrayFields(String owner, boolean isStatic) {
            List<FieldNode> out = new ArrayList<>();
            String c = owner;
            for (int depth = 0; c != null && depth < 16 && !HostEffects.platform(c); depth++) {
                ClassNode node = node(c);
                if (node == null) {
                    break;
                }
                for (FieldNode f : node.fields) {
                    Type t = Type.getType(f.desc);
                    if (((f.access & Opcodes.ACC_STATIC) != 0) == isStatic && t.getSort() == Type.ARRAY
                            && t.getDimensions() <= 2 && t.getElementType().getSort() <= Type.DOUBLE) {
                        out.add(f);
                    }
                }
                if (isStatic) {
                    break;
                }
                c = node.superName;
            }
            return out;
        }

        /** Whether a value recorded at {@code i} (the {@code which}-th kept per visit) may be an array. */
        private boolean stored(int i, int which) {
            List<V> values = seen.getOrDefault(i, List.of());
            for (int k = which; k < values.size(); k += 2) {
                if (values.get(k).known()) {
                    return true;
                }
            }
            return false;
        }

        /** Null when no argument that may be an array may be one from outside the loop; else the argument. */
        private String arguments(Type[] params, List<V> values) {
            if (params.length == 0) {
                return null;
            }
            for (int k = 0; k < values.size(); k++) {
                Type p = params[k % params.length];
                if (mayBeArray(p) && values.get(k).known()) {
                    return "an array";
                }
            }
            return null;
        }

        /** The class file of {@code owner}, the loop's own class as it is, each other one read once; null if unreadable. */
        private ClassNode node(String owner) {
            if (owner.equals(cn.name)) {
                return cn;
            }
            return read.computeIfAbsent(owner, o -> {
                byte[] b = classes.bytes(o);
                if (b == null) {
                    return null;
                }
                ClassNode n = new ClassNode();
                new ClassReader(b).accept(n, ClassReader.SKIP_FRAMES);
                return n;
            });
        }

        private Boolean isVolatile(FieldInsnNode f) {
            String owner = f.owner;
            for (int depth = 0; owner != null && depth < 16; depth++) {
                ClassNode c = node(owner);
                if (c == null) {
                    return null;
                }
                for (FieldNode fn : c.fields) {
                    if (fn.name.equals(f.name) && fn.desc.equals(f.desc)) {
                        return (fn.access & Opcodes.ACC_VOLATILE) != 0;
                    }
                }
                owner = c.superName;
            }
            return null;
        }

        /** Exception handlers: those covering the body must lead into it or out of it as a block, in table order. */
        private String handlers() {
            boolean enclosingSeen = false;
            for (TryCatchBlockNode t : mn.tryCatchBlocks) {
                int from = mn.instructions.indexOf(t.start);
                int to = mn.instructions.indexOf(t.end);
                boolean covers = false;
                boolean inside = true;
                for (int i = from; i < to; i++) {
                    if (!flow.reachable(i) || mn.instructions.get(i).getOpcode() < 0) {
                        continue;
                    }
                    covers |= body.get(i);
                    inside &= body.get(i);
                }
                if (!covers) {
                    continue;
                }
                if (inside) {
                    // a try block inside the loop (its handler inside, or outside: an exit the rewrite takes
                    // through the region's exit); it must come before the handlers around the loop
                    if (enclosingSeen) {
                        return "its exception handlers are in an order acc4j does not follow";
                    }
                    continue;
                }
                if (body.get(mn.instructions.indexOf(t.handler))) {
                    return "a try block starts outside it and ends inside it";
                }
                // a handler outside the loop: its range covers the whole loop
                for (int i = body.nextSetBit(0); i >= 0; i = body.nextSetBit(i + 1)) {
                    if ((i < from || i >= to) && flow.reachable(i) && mn.instructions.get(i).getOpcode() >= 0) {
                        return "a try block covers part of it (line " + lineAt(mn, from) + ")";
                    }
                }
                enclosingSeen = true;
            }
            return null;
        }

        private void interpret(int h, Frame<BasicValue> typed) throws AnalyzerException {
            int n = flow.size;
            @SuppressWarnings("unchecked")
            Frame<V>[] in = new Frame[n];
            Frame<V> f0 = new Frame<>(typed.getLocals(), Math.max(1, mn.maxStack));
            for (int s = 0; s < typed.getLocals(); s++) {
                BasicValue b = typed.getLocal(s);
                Type t = b.getType();
                if (b == BasicValue.UNINITIALIZED_VALUE || t == null) {
                    f0.setLocal(s, V.NONE);
                } else if (Flow.Typed.isReference(t)) {
                    f0.setLocal(s, new V(1, Set.of(s), false));
                } else {
                    f0.setLocal(s, new V(t.getSize(), Set.of(), false));
                }
            }
            in[h] = f0;
            Deque<Integer> queue = new ArrayDeque<>();
            BitSet queued = new BitSet();
            queue.add(h);
            queued.set(h);
            while (!queue.isEmpty()) {
                int i = queue.poll();
                queued.clear(i);
                current = i;
                AbstractInsnNode insn = mn.instructions.get(i);
                Frame<V> f = new Frame<>(in[i]);
                if (insn.getOpcode() >= 0) {
                    f.execute(insn, this);
                }
                BitSet next = flow.next[i];
                for (int s = next.nextSetBit(0); s >= 0; s = next.nextSetBit(s + 1)) {
                    if (body.get(s) && s != h && flow.reachable(s) && merge(in, s, f) && !queued.get(s)) {
                        queued.set(s);
                        queue.add(s);
                    }
                    if (s == h) {
                        backEdge(in, h, f, queue, queued);
                    }
                }
                BitSet hs = flow.handlers[i];
                for (int s = hs.nextSetBit(0); s >= 0; s = hs.nextSetBit(s + 1)) {
                    if (!body.get(s)) {
                        continue;
                    }
                    Frame<V> hf = new Frame<>(in[i]);
                    hf.clearStack();
                    hf.push(V.NONE);
                    if (merge(in, s, hf) && !queued.get(s)) {
                        queued.set(s);
                        queue.add(s);
                    }
                }
            }
        }

        private void backEdge(Frame<V>[] in, int h, Frame<V> f, Deque<Integer> queue, BitSet queued)
                throws AnalyzerException {
            if (merge(in, h, f) && !queued.get(h)) {
                queued.set(h);
                queue.add(h);
            }
        }

        private boolean merge(Frame<V>[] in, int s, Frame<V> f) throws AnalyzerException {
            if (in[s] == null) {
                in[s] = new Frame<>(f);
                return true;
            }
            return in[s].merge(f, this);
        }

        private void record(V... values) {
            List<V> list = seen.computeIfAbsent(current, k -> new ArrayList<>());
            for (V v : values) {
                list.add(v);
            }
        }

        // -------------------------------------------------------------- the interpreter

        @Override
        public V newValue(Type type) {
            if (type == null) {
                return V.NONE;
            }
            if (type.getSort() == Type.VOID) {
                return null;
            }
            return new V(type.getSize(), Set.of(), false);
        }

        @Override
        public V newOperation(AbstractInsnNode insn) {
            switch (insn.getOpcode()) {
                case Opcodes.LCONST_0: case Opcodes.LCONST_1: case Opcodes.DCONST_0: case Opcodes.DCONST_1:
                    return new V(2, Set.of(), false);
                case Opcodes.LDC: {
                    Object c = ((LdcInsnNode) insn).cst;
                    return c instanceof Long || c instanceof Double ? new V(2, Set.of(), false)
                            : c instanceof org.objectweb.asm.ConstantDynamic cd ? newValue(Type.getType(cd.getDescriptor()))
                            : V.NONE;
                }
                case Opcodes.GETSTATIC: {
                    Type t = Type.getType(((FieldInsnNode) insn).desc);
                    return mayBeArray(t) ? V.OTHER : new V(t.getSize(), Set.of(), false);
                }
                default:
                    return V.NONE;
            }
        }

        @Override
        public V copyOperation(AbstractInsnNode insn, V value) {
            return value;
        }

        @Override
        public V unaryOperation(AbstractInsnNode insn, V value) {
            switch (insn.getOpcode()) {
                case Opcodes.LNEG: case Opcodes.DNEG: case Opcodes.I2L: case Opcodes.I2D: case Opcodes.L2D:
                case Opcodes.F2L: case Opcodes.F2D: case Opcodes.D2L:
                    return new V(2, Set.of(), false);
                case Opcodes.GETFIELD: {
                    Type t = Type.getType(((FieldInsnNode) insn).desc);
                    return mayBeArray(t) ? V.OTHER : new V(t.getSize(), Set.of(), false);
                }
                case Opcodes.CHECKCAST:
                    return value;
                case Opcodes.PUTSTATIC:
                    record(value, V.NONE);
                    return null;
                default:
                    // the rest push an int or a float, a new array, or nothing (the frame ignores the value then)
                    return V.NONE;
            }
        }

        @Override
        public V binaryOperation(AbstractInsnNode insn, V value1, V value2) {
            int op = insn.getOpcode();
            if (op >= Opcodes.IALOAD && op <= Opcodes.SALOAD) {
                record(value1);
                if (op == Opcodes.AALOAD) {
                    // a row of a region array, or of an array from elsewhere; rows of an array the loop made are
                    // its own unless an array was stored into it, which the checks refuse
                    return value1;
                }
                return op == Opcodes.LALOAD || op == Opcodes.DALOAD ? new V(2, Set.of(), false) : V.NONE;
            }
            if (op == Opcodes.PUTFIELD) {
                record(value2, V.NONE);
                return null;
            }
            switch (op) {
                case Opcodes.LADD: case Opcodes.LSUB: case Opcodes.LMUL: case Opcodes.LDIV: case Opcodes.LREM:
                case Opcodes.LSHL: case Opcodes.LSHR: case Opcodes.LUSHR: case Opcodes.LAND: case Opcodes.LOR:
                case Opcodes.LXOR: case Opcodes.DADD: case Opcodes.DSUB: case Opcodes.DMUL: case Opcodes.DDIV:
                case Opcodes.DREM:
                    return new V(2, Set.of(), false);
                default:
                    return V.NONE;
            }
        }

        @Override
        public V ternaryOperation(AbstractInsnNode insn, V value1, V value2, V value3) {
            // xASTORE: the array, then (for aastore) the value stored
            if (insn.getOpcode() == Opcodes.AASTORE) {
                record(value1);
                List<V> list = seen.get(current);
                // kept as pairs for stored(): the array at even places, the value at odd ones
                list.add(value3);
            } else {
                record(value1);
            }
            return null;
        }

        @Override
        public V naryOperation(AbstractInsnNode insn, List<? extends V> values) {
            if (insn.getOpcode() == Opcodes.MULTIANEWARRAY) {
                return V.NONE;
            }
            String desc = insn instanceof MethodInsnNode m ? m.desc : ((InvokeDynamicInsnNode) insn).desc;
            for (V v : values) {
                record(v);
            }
            Type r = Type.getReturnType(desc);
            if (r.getSort() == Type.VOID) {
                return null;
            }
            if (r.getSort() != Type.OBJECT && r.getSort() != Type.ARRAY) {
                return new V(r.getSize(), Set.of(), false);
            }
            return r.getSort() == Type.OBJECT && (INERT.contains(r.getInternalName()) || !mayBeArray(r)) ? V.NONE
                    : V.OTHER;
        }

        @Override
        public void returnOperation(AbstractInsnNode insn, V value, V expected) {
        }

        @Override
        public V merge(V a, V b) {
            if (a.equals(b)) {
                return a;
            }
            Set<Integer> s = new TreeSet<>(a.slots());
            s.addAll(b.slots());
            return new V(Math.min(a.size(), b.size()), Set.copyOf(s), a.other() || b.other());
        }
    }

    /** The argument types of a call, the receiver first for an instance call. */
    private static Type[] params(MethodInsnNode m) {
        Type[] args = Type.getArgumentTypes(m.desc);
        if (m.getOpcode() == Opcodes.INVOKESTATIC) {
            return args.length == 0 ? new Type[] {Type.VOID_TYPE} : args;
        }
        Type[] all = new Type[args.length + 1];
        all[0] = Type.getObjectType(m.owner);
        System.arraycopy(args, 0, all, 1, args.length);
        return all;
    }

    /** The element sort an array load of {@code op} reads ({@link Type#ARRAY} for a row). */
    private static int kind(int op) {
        return switch (op) {
            case Opcodes.IALOAD -> Type.INT;
            case Opcodes.LALOAD -> Type.LONG;
            case Opcodes.FALOAD -> Type.FLOAT;
            case Opcodes.DALOAD -> Type.DOUBLE;
            case Opcodes.AALOAD -> Type.ARRAY;
            case Opcodes.BALOAD -> Type.BYTE;
            case Opcodes.CALOAD -> Type.CHAR;
            default -> Type.SHORT;
        };
    }

    private static String simple(String owner) {
        return owner.substring(owner.lastIndexOf('/') + 1);
    }

    private static String names(MethodNode mn, Set<Integer> slots, Set<Integer> region, int at) {
        List<String> out = new ArrayList<>();
        for (int s : slots) {
            if (region.contains(s)) {
                out.add(localName(mn, s, at));
            }
        }
        return String.join(", ", out);
    }

    static int lineAt(MethodNode mn, int index) {
        int line = 0;
        for (AbstractInsnNode i = mn.instructions.getFirst(); i != null; i = i.getNext()) {
            if (i instanceof LineNumberNode ln) {
                line = ln.line;
            }
            if (mn.instructions.indexOf(i) >= index && line > 0) {
                return line;
            }
        }
        return line;
    }

    private static String localName(MethodNode mn, int slot, int at) {
        if (mn.localVariables != null) {
            for (LocalVariableNode v : mn.localVariables) {
                if (v.index == slot && mn.instructions.indexOf(v.start) <= at && at < mn.instructions.indexOf(v.end)) {
                    return v.name;
                }
            }
        }
        return "local " + slot;
    }
}
