package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.TryCatchBlockNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Rewrites a planned {@code @Kernels} method in place: a call scope opened at its start and closed at every exit,
 * normal or by an exception, and at each site a call into the runtime placed where control enters the nest. When
 * the device ran the nest, the call gives back the live-out locals and control jumps past the nest's bytecode; when
 * it did not (null), the nest's own bytecode runs, unchanged. Frames are left to the class writer
 * ({@code COMPUTE_FRAMES}).
 */
public final class Rewriter {
    /** The runtime class the rewritten code calls. */
    public static final String RUNTIME = "org/acc4j/runtime/AccRuntime";

    private Rewriter() {
    }

    /**
     * Rewrites {@code mn}, which must be the method {@code plan} was made from, unchanged since.
     *
     * @param planId the runtime's number for the plan, passed to its entry
     */
    public static void rewrite(MethodNode mn, MethodPlan plan, int planId) {
        rewrite(mn, plan, planId, RUNTIME);
    }

    /** As {@link #rewrite(MethodNode, MethodPlan, int)}, calling the entry points of {@code runtime} (tests give their own). */
    public static void rewrite(MethodNode mn, MethodPlan plan, int planId, String runtime) {
        InsnList insns = mn.instructions;
        boolean isStatic = (mn.access & Opcodes.ACC_STATIC) != 0;
        int scope = mn.maxLocals;
        int result = mn.maxLocals + 1;
        mn.maxLocals += 2;
        // resolve every position to a node first: indices change as code is inserted
        List<AbstractInsnNode[]> at = new ArrayList<>();
        for (MethodPlan.Site s : plan.sites()) {
            int[] r = s.range();
            at.add(new AbstractInsnNode[] {insns.get(r[0]), insns.get(r[1]), insns.get(r[2]), insns.get(r[3])});
        }
        List<AbstractInsnNode> accessed = new ArrayList<>();
        for (MethodPlan.Access a : plan.accesses()) {
            accessed.add(insns.get(a.insn()));
        }
        for (AbstractInsnNode[] a : at) {
            a[2] = label(insns, a[2]);
            a[3] = label(insns, a[3]);
        }
        List<AbstractInsnNode> returns = new ArrayList<>();
        for (AbstractInsnNode i = insns.getFirst(); i != null; i = i.getNext()) {
            int op = i.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                returns.add(i);
            }
        }
        for (int k = 0; k < plan.sites().size(); k++) {
            site(mn, plan.sites().get(k), at.get(k), scope, result, runtime);
        }
        int follows = -1;
        if (!accessed.isEmpty()) {
            follows = mn.maxLocals;
            int stash = mn.maxLocals + 1;
            mn.maxLocals += 3;
            for (int k = 0; k < accessed.size(); k++) {
                access(insns, accessed.get(k), plan.accesses().get(k).kind(), scope, follows, stash, runtime);
            }
        }
        for (AbstractInsnNode r : returns) {
            InsnList exit = new InsnList();
            exit.add(new VarInsnNode(Opcodes.ALOAD, scope));
            exit.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, "exitCall", "(Ljava/lang/Object;)V"));
            insns.insertBefore(r, exit);
        }
        // entry: the scope, then everything after it is covered by the exit-on-throw handler
        InsnList entry = new InsnList();
        entry.add(new LdcInsnNode(Type.getObjectType(plan.owner())));
        entry.add(isStatic ? new InsnNode(Opcodes.ACONST_NULL) : new VarInsnNode(Opcodes.ALOAD, 0));
        entry.add(new LdcInsnNode(planId));
        Type[] args = Type.getArgumentTypes(mn.desc);
        int[] argSlots = new int[args.length];
        int slot = isStatic ? 0 : 1;
        for (int i = 0; i < args.length; i++) {
            argSlots[i] = slot;
            slot += args[i].getSize();
        }
        values(entry, argSlots, args);
        int[] handles = plan.entryHandles().stream().mapToInt(Integer::intValue).toArray();
        Type[] handleTypes = new Type[handles.length];
        java.util.Arrays.fill(handleTypes, Type.getObjectType("java/lang/Object"));
        values(entry, handles, handleTypes);
        entry.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, "enterCall",
                "(Ljava/lang/Class;Ljava/lang/Object;I[Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;"));
        entry.add(new VarInsnNode(Opcodes.ASTORE, scope));
        if (follows >= 0) {
            // whether this call follows host code's accesses at all: a call with no data scope skips every hook
            entry.add(new VarInsnNode(Opcodes.ALOAD, scope));
            entry.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, FOLLOWS_HOST, FOLLOWS_HOST_DESC));
            entry.add(new VarInsnNode(Opcodes.ISTORE, follows));
        }
        LabelNode begin = new LabelNode();
        entry.add(begin);
        insns.insert(entry);
        LabelNode end = new LabelNode();
        LabelNode handler = new LabelNode();
        insns.add(end);
        insns.add(handler);
        insns.add(new VarInsnNode(Opcodes.ALOAD, scope));
        insns.add(new InsnNode(Opcodes.SWAP));
        insns.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, "exitCallThrown",
                "(Ljava/lang/Object;Ljava/lang/Throwable;)Ljava/lang/Throwable;"));
        insns.add(new InsnNode(Opcodes.ATHROW));
        // last in the table: the method's own handlers are tried first
        mn.tryCatchBlocks.add(new TryCatchBlockNode(begin, end, handler, null));
        mn.maxStack += 8;
    }

    /** The runtime's entries before host code's element accesses: (array, call), (array, index, call). */
    public static final String HOST_READ = "hostRead";
    public static final String HOST_WRITE = "hostWrite";
    public static final String HOST_ROW_STORE = "hostRowStore";
    public static final String HOST_READ_DESC = "(Ljava/lang/Object;Ljava/lang/Object;)V";
    public static final String HOST_WRITE_DESC = "(Ljava/lang/Object;ILjava/lang/Object;)V";
    /** The runtime's answer, once per call, to whether the hooks do anything for it: (call) -> boolean. */
    public static final String FOLLOWS_HOST = "followsHost";
    public static final String FOLLOWS_HOST_DESC = "(Ljava/lang/Object;)Z";
    /** (array, index, row, call). */
    public static final String HOST_ROW_STORE_DESC = "(Ljava/lang/Object;ILjava/lang/Object;Ljava/lang/Object;)V";

    /**
     * Calls the runtime before an element access of host code ({@link HostAccesses}), when the call follows them (a
     * flag set once at the method's entry): a load passes its array, a store
     * its array and index (its value waits in {@code stash} meanwhile; a row's store passes the row too), each with
     * the call's scope.
     */
    private static void access(InsnList insns, AbstractInsnNode insn, int kind, int scope, int follows, int stash,
                               String runtime) {
        InsnList code = new InsnList();
        LabelNode skip = new LabelNode();
        code.add(new VarInsnNode(Opcodes.ILOAD, follows));
        code.add(new JumpInsnNode(Opcodes.IFEQ, skip));
        if (kind == MethodPlan.Access.READ) {
            // array, index -> array, index, array
            code.add(new InsnNode(Opcodes.DUP2));
            code.add(new InsnNode(Opcodes.POP));
            code.add(new VarInsnNode(Opcodes.ALOAD, scope));
            code.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, HOST_READ, HOST_READ_DESC));
        } else {
            boolean row = kind == MethodPlan.Access.ROW_STORE;
            Type value = row ? Type.getType(Object.class) : stored(insn.getOpcode());
            code.add(new VarInsnNode(value.getOpcode(Opcodes.ISTORE), stash));
            code.add(new InsnNode(Opcodes.DUP2));
            if (row) {
                code.add(new VarInsnNode(Opcodes.ALOAD, stash));
            }
            code.add(new VarInsnNode(Opcodes.ALOAD, scope));
            code.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, row ? HOST_ROW_STORE : HOST_WRITE,
                    row ? HOST_ROW_STORE_DESC : HOST_WRITE_DESC));
            code.add(new VarInsnNode(value.getOpcode(Opcodes.ILOAD), stash));
        }
        code.add(skip);
        insns.insertBefore(insn, code);
    }

    /** The type of the value a primitive array store takes off the stack. */
    private static Type stored(int opcode) {
        return switch (opcode) {
            case Opcodes.LASTORE -> Type.LONG_TYPE;
            case Opcodes.FASTORE -> Type.FLOAT_TYPE;
            case Opcodes.DASTORE -> Type.DOUBLE_TYPE;
            default -> Type.INT_TYPE;
        };
    }

    /** The label at instruction {@code i}, inserting one before it if there is none. */
    private static LabelNode label(InsnList insns, AbstractInsnNode i) {
        if (i instanceof LabelNode l) {
            return l;
        }
        LabelNode l = new LabelNode();
        insns.insertBefore(i, l);
        return l;
    }

    private static void site(MethodNode mn, MethodPlan.Site s, AbstractInsnNode[] at, int scope, int result,
                             String runtime) {
        InsnList insns = mn.instructions;
        AbstractInsnNode first = at[0];
        AbstractInsnNode last = at[1];
        LabelNode header = (LabelNode) at[2];
        LabelNode exit = (LabelNode) at[3];
        LabelNode entry = new LabelNode();
        // entries from outside the nest now enter through the site
        java.util.Set<AbstractInsnNode> inside = new java.util.HashSet<>();
        for (AbstractInsnNode i = first; i != null; i = i.getNext()) {
            inside.add(i);
            if (i == last) {
                break;
            }
        }
        for (AbstractInsnNode i = insns.getFirst(); i != null; i = i.getNext()) {
            if (inside.contains(i)) {
                continue;
            }
            if (i instanceof JumpInsnNode j && j.label == header) {
                j.label = entry;
            } else if (i instanceof TableSwitchInsnNode t) {
                t.dflt = t.dflt == header ? entry : t.dflt;
                t.labels.replaceAll(l -> l == header ? entry : l);
            } else if (i instanceof LookupSwitchInsnNode t) {
                t.dflt = t.dflt == header ? entry : t.dflt;
                t.labels.replaceAll(l -> l == header ? entry : l);
            }
        }
        for (TryCatchBlockNode t : mn.tryCatchBlocks) {
            if (t.start == header) {
                t.start = entry;
            }
        }
        InsnList code = new InsnList();
        code.add(entry);
        code.add(new VarInsnNode(Opcodes.ALOAD, scope));
        code.add(new LdcInsnNode(s.index()));
        int n = s.values();
        int[] slots = new int[n];
        Type[] types = new Type[n];
        for (int k = 0; k < s.liveIns().size(); k++) {
            slots[k] = s.liveIns().get(k).slot();
            types[k] = Type.getType(s.liveIns().get(k).descriptor());
        }
        for (int k = 0; k < s.handles().size(); k++) {
            slots[s.liveIns().size() + k] = s.handles().get(k);
            types[s.liveIns().size() + k] = Type.getObjectType("java/lang/Object");
        }
        values(code, slots, types);
        code.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, "site",
                "(Ljava/lang/Object;I[Ljava/lang/Object;)[Ljava/lang/Object;"));
        code.add(new VarInsnNode(Opcodes.ASTORE, result));
        code.add(new VarInsnNode(Opcodes.ALOAD, result));
        code.add(new JumpInsnNode(Opcodes.IFNULL, header));
        for (int k = 0; k < s.liveOuts().size(); k++) {
            MethodPlan.Local o = s.liveOuts().get(k);
            Type t = Type.getType(o.descriptor());
            code.add(new VarInsnNode(Opcodes.ALOAD, result));
            code.add(push(k));
            code.add(new InsnNode(Opcodes.AALOAD));
            unbox(code, t);
            code.add(new VarInsnNode(t.getOpcode(Opcodes.ISTORE), o.slot()));
        }
        code.add(new JumpInsnNode(Opcodes.GOTO, exit));
        insns.insertBefore(header, code);
    }

    /** Pushes an {@code Object[]} of the locals in {@code slots}, boxed. */
    private static void values(InsnList code, int[] slots, Type[] types) {
        code.add(push(slots.length));
        code.add(new TypeInsnNode(Opcodes.ANEWARRAY, "java/lang/Object"));
        for (int k = 0; k < slots.length; k++) {
            code.add(new InsnNode(Opcodes.DUP));
            code.add(push(k));
            code.add(new VarInsnNode(types[k].getOpcode(Opcodes.ILOAD), slots[k]));
            box(code, types[k]);
            code.add(new InsnNode(Opcodes.AASTORE));
        }
    }

    private static AbstractInsnNode push(int k) {
        return k <= 5 ? new InsnNode(Opcodes.ICONST_0 + k) : k < 128 ? new IntInsnNode(Opcodes.BIPUSH, k)
                : new LdcInsnNode(k);
    }

    private static void box(InsnList code, Type t) {
        String w = wrapper(t);
        if (w != null) {
            code.add(new MethodInsnNode(Opcodes.INVOKESTATIC, w, "valueOf", "(" + t.getDescriptor() + ")L" + w + ";"));
        }
    }

    private static void unbox(InsnList code, Type t) {
        String w = wrapper(t);
        code.add(new TypeInsnNode(Opcodes.CHECKCAST, w));
        code.add(new MethodInsnNode(Opcodes.INVOKEVIRTUAL, w, t.getClassName() + "Value", "()" + t.getDescriptor()));
    }

    private static String wrapper(Type t) {
        return switch (t.getSort()) {
            case Type.BOOLEAN -> "java/lang/Boolean";
            case Type.BYTE -> "java/lang/Byte";
            case Type.CHAR -> "java/lang/Character";
            case Type.SHORT -> "java/lang/Short";
            case Type.INT -> "java/lang/Integer";
            case Type.LONG -> "java/lang/Long";
            case Type.FLOAT -> "java/lang/Float";
            case Type.DOUBLE -> "java/lang/Double";
            default -> null;
        };
    }
}
