package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.acc4j.compiler.Unsupported;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LineNumberNode;
import org.objectweb.asm.tree.LocalVariableAnnotationNode;
import org.objectweb.asm.tree.LocalVariableNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicInterpreter;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Inlines the application's static, private and final methods into a method before it is read.
 *
 * <p>The expansion works on bytecode: at each call the arguments (and the receiver, which must be {@code this})
 * are stored into fresh local slots, the callee's instructions follow with their slots moved past the caller's,
 * and each of its returns becomes a jump to the end of the copy, the value left on the operand stack. The
 * {@link MethodReader} then reads the result as if the programmer had written the body in place: a callee with
 * several returns is a {@code ?:}, a callee's loops are loops of the caller (its {@code @Loop} annotations come
 * along). The copy keeps the call's source line, so a diagnostic or an exception inside it names the line of the
 * call. Before a callee is copied it is read on its own, so that a construct outside the subset is reported with
 * the callee's name and its own line.
 *
 * <p>A virtual call of a method that a subclass could override is expanded with the body the call resolves to in
 * the class it names, and recorded ({@link Virtual}): before each launch the plan checks that the receivers' classes
 * at that call do not override it ({@code plan.Overrides}), else the call runs as plain Java.
 *
 * <p>A constructor ({@code new Complex(x, y)}) is expanded too, for a class whose instance fields (its superclasses'
 * included) are final and primitive: the object is then a value, which the reader keeps as one local per field
 * ({@link Expanded#objects()}); the expansion leaves the object in the local the constructor's {@code this} was
 * given ({@link Construction}).
 *
 * <p>Calls to the JDK ({@code java.}, {@code javax.}, {@code jdk.}, {@code sun.}) are left for the reader, which
 * knows {@code Math}. Interface calls, recursion and callees with handlers, {@code synchronized} or no code are
 * refused with a diagnostic.
 */
public final class Inliner {
    /** Class files by internal name ({@code a/b/C}); null when the class cannot be read. */
    @FunctionalInterface
    public interface ClassSource {
        byte[] bytes(String internalName);
    }

    /** The most instance fields an object made in a nest may have (each becomes a local of every thread). */
    static final int MAX_OBJECT_FIELDS = 64;

    /** How deep calls are followed; deeper chains are refused rather than expanded without end. */
    static final int MAX_DEPTH = 8;

    /**
     * The method with its calls expanded, a line per inlined call ("Helper.f at line 12"), and the overridable methods
     * expanded, each once.
     */
    public record Expanded(MethodNode method, List<String> inlined, List<Virtual> virtuals,
            Map<String, List<ObjectField>> objects) {
        /** Without objects made in the nest. */
        public Expanded(MethodNode method, List<String> inlined, List<Virtual> virtuals) {
            this(method, inlined, virtuals, Map.of());
        }
    }

    /**
     * An instance field of a class whose constructor is inlined ({@link #objectFields}): its name and descriptor, and
     * the class that declares it.
     */
    public record ObjectField(String declaring, String name, String descriptor) {
    }

    /**
     * An overridable method expanded at a virtual call: {@code name} and {@code descriptor} as the call names them in
     * class {@code owner}, whose body came from class {@code declaring} (internal names). A receiver of a class that
     * declares the method again between its own class and {@code declaring} would run another body.
     */
    public record Virtual(String owner, String name, String descriptor, String declaring) {
    }

    private final ClassSource classes;
    private final Map<String, ClassNode> loaded = new HashMap<>();
    private final List<String> inlined = new ArrayList<>();
    private final List<Virtual> virtuals = new ArrayList<>();
    /** The classes whose constructors are inlined, with their instance fields, for the reader's objects. */
    private final Map<String, List<ObjectField>> objects = new HashMap<>();

    private Inliner(ClassNode owner, ClassSource classes) {
        this.classes = classes;
        loaded.put(owner.name, owner);
    }

    /** {@code method} of {@code owner} with every inlinable call expanded; the original is not changed. */
    public static Expanded expand(ClassNode owner, MethodNode method, ClassSource classes) {
        Inliner in = new Inliner(owner, classes);
        MethodNode copy = in.expanded(owner, method, new ArrayList<>());
        return new Expanded(copy, List.copyOf(in.inlined), List.copyOf(in.virtuals), Map.copyOf(in.objects));
    }

    /** A copy of {@code method} with its calls expanded; {@code chain} holds the methods being expanded around it. */
    private MethodNode expanded(ClassNode owner, MethodNode method, List<String> chain) {
        MethodNode copy = copy(method);
        if (!hasCandidate(copy)) {
            return copy;
        }
        chain.add(owner.name + "." + method.name + method.desc);
        int[] lineAt = lines(copy);
        AbstractInsnNode[] insns = copy.instructions.toArray();
        for (int i = 0; i < insns.length; i++) {
            if (!(insns[i] instanceof MethodInsnNode call) || !isCandidate(call)) {
                continue;
            }
            int line = lineAt[i];
            Resolved callee = resolve(call, line);
            String id = callee.owner.name + "." + callee.method.name + callee.method.desc;
            if (chain.contains(id)) {
                throw new Unsupported(line, "a recursive call to " + display(callee.owner, callee.method));
            }
            if (chain.size() >= MAX_DEPTH) {
                throw new Unsupported(line, "calls nested more than " + MAX_DEPTH + " deep (at "
                        + display(callee.owner, callee.method) + ")");
            }
            boolean constructor = call.name.equals("<init>");
            Construction made = null;
            if (constructor) {
                objects.put(callee.owner.name, objectFields(callee.owner, line));
                made = construction(owner.name, copy, call, Type.getArgumentTypes(call.desc).length, line);
            }
            MethodNode body;
            try {
                body = expanded(callee.owner, callee.method, chain);
                check(callee.owner, body, objects);
            } catch (Unsupported u) {
                String where = callee.owner.sourceFile != null && u.line() > 0
                        ? " (" + callee.owner.sourceFile + ":" + u.line() + ")" : "";
                throw new Unsupported(line, "a call to " + display(callee.owner, callee.method)
                        + ", which cannot be inlined: " + u.construct() + where);
            }
            int receiver = splice(owner.name, copy, call, body, (callee.method.access & Opcodes.ACC_STATIC) == 0,
                    constructor ? "new" : callee.method.name);
            if (made != null) {
                made.finish(copy, receiver);
            }
            boolean overridable = call.getOpcode() == Opcodes.INVOKEVIRTUAL && !fixed(callee.owner, callee.method);
            inlined.add((constructor ? "the constructor of " + display(callee.owner, callee.method).replace(".<init>", "")
                    + " (its object's fields are locals)" : display(callee.owner, callee.method)) + " at line " + line
                    + (overridable ? " (overridable: the receiver's class is checked at each call)" : ""));
            Virtual v = new Virtual(call.owner, call.name, call.desc, callee.owner.name);
            if (overridable && !virtuals.contains(v)) {
                virtuals.add(v);
            }
        }
        chain.remove(chain.size() - 1);
        return copy;
    }

    private record Resolved(ClassNode owner, MethodNode method) {
    }

    private static boolean hasCandidate(MethodNode m) {
        for (AbstractInsnNode insn : m.instructions) {
            if (insn instanceof MethodInsnNode call && isCandidate(call)) {
                return true;
            }
        }
        return false;
    }

    /** A call this pass handles: a static, special or virtual call of a class outside the JDK. */
    private static boolean isCandidate(MethodInsnNode call) {
        int op = call.getOpcode();
        if (op != Opcodes.INVOKESTATIC && op != Opcodes.INVOKESPECIAL && op != Opcodes.INVOKEVIRTUAL) {
            return false;
        }
        if (Accesses.isOnDevice(call)) {
            return false;
        }
        String o = call.owner;
        if (o.equals("org/acc4j/Acc") && org.acc4j.compiler.ir.AtomicOp.named(call.name) != null) {
            return false;
        }
        return !(o.startsWith("java/") || o.startsWith("javax/") || o.startsWith("jdk/") || o.startsWith("sun/")
                || o.startsWith("com/sun/") || o.startsWith("["));
    }

    private Resolved resolve(MethodInsnNode call, int line) {
        String what = call.owner.replace('/', '.') + "." + call.name;
        if (call.name.equals("<init>")) {
            // a constructor is its class's own
            ClassNode cn = load(call.owner);
            if (cn == null) {
                throw new Unsupported(line, "an allocation (new) of " + call.owner.replace('/', '.')
                        + ", whose class file cannot be read");
            }
            for (MethodNode m : cn.methods) {
                if (m.name.equals("<init>") && m.desc.equals(call.desc)) {
                    requireInlinable(call, cn, m, line);
                    return new Resolved(cn, m);
                }
            }
            throw new Unsupported(line, "an allocation (new) of " + call.owner.replace('/', '.') + ", whose constructor is not found");
        }
        for (String name = call.owner; name != null; ) {
            ClassNode cn = load(name);
            if (cn == null) {
                throw new Unsupported(line, "a call to " + what + " (the class file of " + name.replace('/', '.')
                        + " cannot be read, so the method cannot be inlined)");
            }
            for (MethodNode m : cn.methods) {
                if (m.name.equals(call.name) && m.desc.equals(call.desc)) {
                    requireInlinable(call, cn, m, line);
                    return new Resolved(cn, m);
                }
            }
            name = cn.superName == null || cn.superName.startsWith("java/") ? null : cn.superName;
        }
        throw new Unsupported(line, "a call to " + what + ", whose body is not in the application's classes");
    }

    private static void requireInlinable(MethodInsnNode call, ClassNode cn, MethodNode m, int line) {
        String what = display(cn, m);
        if ((m.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
            throw new Unsupported(line, "a call to " + what + ", which has no bytecode (abstract or native)");
        }
        if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0) {
            throw new Unsupported(line, "a call to the synchronized method " + what);
        }
        boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
        if ((call.getOpcode() == Opcodes.INVOKESTATIC) != isStatic) {
            throw new Unsupported(line, "a call to " + what + " that does not match its declaration");
        }
        if (!m.tryCatchBlocks.isEmpty()) {
            throw new Unsupported(line, "a call to " + what + ", which has a try/catch");
        }
    }

    /** Whether no subclass can override {@code m} of {@code cn}: it is private or final, or its class is final. */
    private static boolean fixed(ClassNode cn, MethodNode m) {
        return (m.access & (Opcodes.ACC_PRIVATE | Opcodes.ACC_FINAL)) != 0 || (cn.access & Opcodes.ACC_FINAL) != 0;
    }

    /** Reads the callee on its own, so that what it cannot offload is reported with its name and line. */
    private static void check(ClassNode owner, MethodNode body, Map<String, List<ObjectField>> objects) {
        MethodReader.read(owner, body, true, objects);
    }

    /**
     * The instance fields of {@code cn} and its superclasses up to {@code Object}, which a kernel keeps as locals
     * where it makes such an object: every one must be a final field of a primitive type (so that the object is a
     * value, which only its constructor sets), and the superclasses must be the application's.
     */
    private List<ObjectField> objectFields(ClassNode cn, int line) {
        List<ObjectField> out = new ArrayList<>();
        String what = "an allocation (new) of " + cn.name.substring(cn.name.lastIndexOf('/') + 1).replace('$', '.');
        for (ClassNode c = cn; c != null; ) {
            for (org.objectweb.asm.tree.FieldNode f : c.fields) {
                if ((f.access & Opcodes.ACC_STATIC) != 0) {
                    continue;
                }
                if (org.acc4j.compiler.ir.Type.ofDescriptor(f.desc) == null || f.desc.length() != 1) {
                    throw new Unsupported(line, what + ", whose field " + f.name + " is not of a primitive type");
                }
                if ((f.access & Opcodes.ACC_FINAL) == 0) {
                    throw new Unsupported(line, what + ", whose field " + f.name + " is not final (a kernel makes objects"
                            + " whose fields only their constructors set)");
                }
                out.add(new ObjectField(c.name, f.name, f.desc));
                if (out.size() > MAX_OBJECT_FIELDS) {
                    throw new Unsupported(line, what + ", which has more than " + MAX_OBJECT_FIELDS + " fields");
                }
            }
            if (c.superName == null || c.superName.equals("java/lang/Object")) {
                break;
            }
            if (c.superName.startsWith("java/")) {
                throw new Unsupported(line, what + ", a subclass of " + c.superName.replace('/', '.'));
            }
            ClassNode sup = load(c.superName);
            if (sup == null) {
                throw new Unsupported(line, what + ", whose superclass's class file cannot be read");
            }
            c = sup;
        }
        return List.copyOf(out);
    }

    /**
     * How the object a constructor call initialises is handed back once the constructor's body has been spliced in
     * (its receiver then lies in a local of its own): an object made by {@code new C(...)}, whose copy the
     * {@code dup} left below, is replaced by that local; a {@code this(...)} or {@code super(...)} call in a
     * constructor copies the local back into the constructor's own receiver.
     */
    private record Construction(AbstractInsnNode after, int thisSlot) {
        void finish(MethodNode m, int receiver) {
            InsnList code = new InsnList();
            if (thisSlot < 0) {
                code.add(new InsnNode(Opcodes.POP));
                code.add(new VarInsnNode(Opcodes.ALOAD, receiver));
            } else {
                code.add(new VarInsnNode(Opcodes.ALOAD, receiver));
                code.add(new VarInsnNode(Opcodes.ASTORE, thisSlot));
            }
            if (after == null) {
                m.instructions.add(code);
            } else {
                m.instructions.insertBefore(after, code);
            }
        }
    }

    /** What {@link Construction} a constructor call needs, from where its receiver comes: a {@code new} or a local. */
    private static Construction construction(String owner, MethodNode m, MethodInsnNode call, int args, int line) {
        Frame<SourceValue>[] sources;
        try {
            sources = new Analyzer<>(new SourceInterpreter()).analyze(owner, m);
        } catch (AnalyzerException e) {
            throw new Unsupported(line, "bytecode the verifier rejects (" + e.getMessage() + ")");
        }
        Frame<SourceValue> f = sources[m.instructions.indexOf(call)];
        if (f == null) {
            throw new Unsupported(line, "an allocation (new) in code that never runs");
        }
        SourceValue receiver = f.getStack(f.getStackSize() - args - 1);
        AbstractInsnNode after = call.getNext();
        if (receiver.insns.size() == 1) {
            AbstractInsnNode p = receiver.insns.iterator().next();
            // the dup's operand, and so both copies, come from the new
            Frame<SourceValue> atDup = p.getOpcode() == Opcodes.DUP ? sources[m.instructions.indexOf(p)] : null;
            if (atDup != null && atDup.getStackSize() > 0 && f.getStackSize() - args - 2 >= 0) {
                SourceValue made = atDup.getStack(atDup.getStackSize() - 1);
                SourceValue below = f.getStack(f.getStackSize() - args - 2);
                if (made.insns.size() == 1 && made.insns.iterator().next().getOpcode() == Opcodes.NEW
                        && below.insns.size() == 1 && below.insns.iterator().next() == p) {
                    return new Construction(after, -1);
                }
            }
            if (p.getOpcode() == Opcodes.ALOAD) {
                return new Construction(after, ((VarInsnNode) p).var);
            }
        }
        throw new Unsupported(line, "an allocation (new) whose object is not made by new and dup");
    }

    private ClassNode load(String name) {
        ClassNode cn = loaded.get(name);
        if (cn == null && !loaded.containsKey(name)) {
            byte[] bytes = classes.bytes(name);
            if (bytes != null) {
                cn = new ClassNode();
                new ClassReader(bytes).accept(cn, 0);
            }
            loaded.put(name, cn);
        }
        return cn;
    }

    /**
     * Replaces {@code call} in {@code into} with the body of {@code callee}.
     *
     * <p>A callee with branches would leave the caller's values below its arguments on the operand stack across
     * its blocks, where the reader can only carry them in stack variables (which hide, say, a loop index from the
     * dependence test, or an accumulator from the reduction finder). So for such a callee those values are taken
     * off the stack first: a local load or a constant is simply done again after the call (nothing between can
     * change it), anything else is stored in a fresh local and loaded back.
     */
    private static int splice(String owner, MethodNode into, MethodInsnNode call, MethodNode callee, boolean hasThis,
            String prefix) {
        int base = into.maxLocals;
        Map<LabelNode, LabelNode> labels = new HashMap<>();
        for (AbstractInsnNode insn : callee.instructions) {
            if (insn instanceof LabelNode l) {
                labels.put(l, new LabelNode());
            }
        }
        LabelNode begin = new LabelNode();
        LabelNode end = new LabelNode();
        AbstractInsnNode last = lastReal(callee);
        InsnList body = new InsnList();
        boolean branches = false;
        for (AbstractInsnNode insn : callee.instructions) {
            int op = insn.getOpcode();
            if (insn instanceof LineNumberNode || insn instanceof FrameNode) {
                continue;
            }
            if (insn instanceof VarInsnNode v) {
                body.add(new VarInsnNode(op, v.var + base));
            } else if (insn instanceof IincInsnNode inc) {
                body.add(new IincInsnNode(inc.var + base, inc.incr));
            } else if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                if (insn != last) {
                    body.add(new JumpInsnNode(Opcodes.GOTO, end));
                    branches = true;
                }
            } else {
                branches |= insn instanceof JumpInsnNode;
                body.add(insn.clone(labels));
            }
        }
        Type[] args = Type.getArgumentTypes(callee.desc);
        int[] slots = new int[args.length];
        int argsSize = hasThis ? 1 : 0;
        for (int k = 0; k < args.length; k++) {
            slots[k] = argsSize;
            argsSize += args[k].getSize();
        }
        int next = base + Math.max(callee.maxLocals, argsSize);
        List<Below> below = branches ? below(owner, into, call, args.length + (hasThis ? 1 : 0)) : List.of();

        InsnList code = new InsnList();
        code.add(begin);
        // the arguments are on the stack, last on top: store them from the last to the first
        for (int k = args.length - 1; k >= 0; k--) {
            code.add(new VarInsnNode(args[k].getOpcode(Opcodes.ISTORE), base + slots[k]));
        }
        if (hasThis) {
            code.add(new VarInsnNode(Opcodes.ASTORE, base));
        }
        for (int k = below.size() - 1; k >= 0; k--) {
            Below v = below.get(k);
            if (v.again == null) {
                v.slot = next;
                next += v.type.getSize();
                code.add(new VarInsnNode(v.type.getOpcode(Opcodes.ISTORE), v.slot));
            }
        }
        code.add(body);
        code.add(end);
        if (!below.isEmpty()) {
            Type result = Type.getReturnType(callee.desc);
            int resultSlot = next;
            if (result.getSort() != Type.VOID) {
                next += result.getSize();
                code.add(new VarInsnNode(result.getOpcode(Opcodes.ISTORE), resultSlot));
            }
            for (Below v : below) {
                code.add(v.again != null ? v.again.clone(Map.of()) : new VarInsnNode(v.type.getOpcode(Opcodes.ILOAD), v.slot));
            }
            if (result.getSort() != Type.VOID) {
                code.add(new VarInsnNode(result.getOpcode(Opcodes.ILOAD), resultSlot));
            }
            for (Below v : below) {
                if (v.again != null) {
                    into.instructions.set(v.producer, new InsnNode(Opcodes.NOP));
                }
            }
        }
        into.instructions.insertBefore(call, code);
        into.instructions.remove(call);

        if (callee.localVariables != null) {
            if (into.localVariables == null) {
                into.localVariables = new ArrayList<>();
            }
            for (LocalVariableNode lv : callee.localVariables) {
                LabelNode start = lv.index < argsSize ? begin : labels.get(lv.start);
                into.localVariables.add(new LocalVariableNode(prefix + "." + lv.name, lv.desc, lv.signature, start,
                        labels.get(lv.end), lv.index + base));
            }
        }
        into.visibleLocalVariableAnnotations = moved(into.visibleLocalVariableAnnotations,
                callee.visibleLocalVariableAnnotations, labels, base);
        into.invisibleLocalVariableAnnotations = moved(into.invisibleLocalVariableAnnotations,
                callee.invisibleLocalVariableAnnotations, labels, base);
        into.maxLocals = next;
        into.maxStack = into.maxStack + callee.maxStack + 2;
        return base;
    }

    /** A caller's value below a call's arguments: done {@code again} after the call, or kept in {@code slot}. */
    private static final class Below {
        final Type type;
        final AbstractInsnNode producer;
        final AbstractInsnNode again;
        int slot = -1;

        Below(Type type, AbstractInsnNode producer, AbstractInsnNode again) {
            this.type = type;
            this.producer = producer;
            this.again = again;
        }
    }

    /** The values below the {@code args} arguments of {@code call}, bottom first. */
    private static List<Below> below(String owner, MethodNode m, MethodInsnNode call, int args) {
        Frame<BasicValue>[] types;
        Frame<SourceValue>[] sources;
        try {
            types = new Analyzer<>(new BasicInterpreter()).analyze(owner, m);
            sources = new Analyzer<>(new SourceInterpreter()).analyze(owner, m);
        } catch (AnalyzerException e) {
            throw new Unsupported(0, "bytecode the verifier rejects (" + e.getMessage() + ")");
        }
        int at = m.instructions.indexOf(call);
        Frame<BasicValue> f = types[at];
        List<Below> out = new ArrayList<>();
        if (f == null) {
            return out;
        }
        for (int k = 0; k < f.getStackSize() - args; k++) {
            BasicValue v = f.getStack(k);
            if (v.getType() == null) {
                throw new Unsupported(0, "a call while an object is being constructed");
            }
            Type t = v.getType().getSort() == Type.OBJECT || v.getType().getSort() == Type.ARRAY
                    ? Type.getType(Object.class) : v.getType();
            AbstractInsnNode producer = null;
            AbstractInsnNode again = null;
            SourceValue sv = sources[at].getStack(k);
            if (sv.insns.size() == 1) {
                producer = sv.insns.iterator().next();
                if (repeatable(m, producer, call)) {
                    again = producer;
                }
            }
            out.add(new Below(t, producer, again));
        }
        return out;
    }

    /**
     * Whether {@code p}, a local load or a constant, gives the same value when done again at {@code call}: it
     * comes before the call with no jump, store to its local, or stack shuffle between.
     */
    private static boolean repeatable(MethodNode m, AbstractInsnNode p, AbstractInsnNode call) {
        int op = p.getOpcode();
        boolean load = op >= Opcodes.ILOAD && op <= Opcodes.ALOAD;
        boolean constant = (op >= Opcodes.ACONST_NULL && op <= Opcodes.LDC);
        if (!load && !constant) {
            return false;
        }
        int from = m.instructions.indexOf(p);
        int to = m.instructions.indexOf(call);
        if (from >= to) {
            return false;
        }
        for (AbstractInsnNode i = p.getNext(); i != call; i = i.getNext()) {
            int o = i.getOpcode();
            if (i instanceof JumpInsnNode || (o >= Opcodes.POP && o <= Opcodes.SWAP)) {
                return false;
            }
            if (load && i instanceof VarInsnNode v && v.var == ((VarInsnNode) p).var && o >= Opcodes.ISTORE) {
                return false;
            }
            if (load && i instanceof IincInsnNode inc && inc.var == ((VarInsnNode) p).var) {
                return false;
            }
        }
        return true;
    }

    private static AbstractInsnNode lastReal(MethodNode m) {
        for (AbstractInsnNode i = m.instructions.getLast(); i != null; i = i.getPrevious()) {
            if (i.getOpcode() >= 0) {
                return i;
            }
        }
        return null;
    }

    /** {@code into} plus the callee's local-variable annotations, their slots and ranges moved into the copy. */
    private static List<LocalVariableAnnotationNode> moved(List<LocalVariableAnnotationNode> into,
            List<LocalVariableAnnotationNode> from, Map<LabelNode, LabelNode> labels, int base) {
        if (from == null || from.isEmpty()) {
            return into;
        }
        List<LocalVariableAnnotationNode> out = into == null ? new ArrayList<>() : into;
        for (LocalVariableAnnotationNode a : from) {
            LabelNode[] start = a.start.stream().map(labels::get).toArray(LabelNode[]::new);
            LabelNode[] end = a.end.stream().map(labels::get).toArray(LabelNode[]::new);
            int[] index = a.index.stream().mapToInt(x -> x + base).toArray();
            LocalVariableAnnotationNode m = new LocalVariableAnnotationNode(a.typeRef, a.typePath, start, end, index, a.desc);
            m.values = a.values;
            out.add(m);
        }
        return out;
    }

    private static MethodNode copy(MethodNode m) {
        MethodNode c = new MethodNode(Opcodes.ASM9, m.access, m.name, m.desc, m.signature,
                m.exceptions == null ? null : m.exceptions.toArray(new String[0]));
        m.accept(c);
        return c;
    }

    private static int[] lines(MethodNode m) {
        int[] lines = new int[m.instructions.size()];
        int line = 0;
        for (int i = 0; i < lines.length; i++) {
            if (m.instructions.get(i) instanceof LineNumberNode ln) {
                line = ln.line;
            }
            lines[i] = line;
        }
        return lines;
    }

    private static String display(ClassNode owner, MethodNode m) {
        return owner.name.substring(owner.name.lastIndexOf('/') + 1).replace('$', '.') + "." + m.name;
    }
}
