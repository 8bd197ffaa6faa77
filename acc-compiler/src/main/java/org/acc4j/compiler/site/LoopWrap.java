package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
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
 * Wraps a loop in an implicit data region ({@link LoopRegions}): the runtime's entry where control enters the loop,
 * its exit on every way out. Jumps and switches out of the loop go through a trampoline per target; returns and a
 * fall out of the loop's last instruction exit in place; an exception leaves through a handler that covers the
 * loop's instructions, placed in the handler table after the loop's own handlers and before those around it (which
 * are given the added code too, so that the exception reaches them as it would have). The exit is idempotent: code
 * that exits and then throws exits once. Frames are left to the class writer.
 */
final class LoopWrap {
    private LoopWrap() {
    }

    static void rewrite(ClassNode cn, MethodNode mn, List<LoopRegions.Region> regions, String runtime) {
        InsnList insns = mn.instructions;
        // resolve every position to nodes first: indices change as code is inserted
        List<AbstractInsnNode> headers = new ArrayList<>();
        List<Set<AbstractInsnNode>> bodies = new ArrayList<>();
        List<List<AbstractInsnNode>> accesses = new ArrayList<>();
        for (LoopRegions.Region r : regions) {
            List<AbstractInsnNode> a = new ArrayList<>();
            for (int i = r.accesses().nextSetBit(0); i >= 0; i = r.accesses().nextSetBit(i + 1)) {
                a.add(insns.get(i));
            }
            accesses.add(a);
            Set<AbstractInsnNode> b = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = r.body().nextSetBit(0); i >= 0; i = r.body().nextSetBit(i + 1)) {
                b.add(insns.get(i));
            }
            headers.add(insns.get(r.header()));
            bodies.add(b);
        }
        for (int k = 0; k < regions.size(); k++) {
            int token = wrap(cn, mn, regions.get(k), headers.get(k), bodies.get(k), runtime);
            hooks(mn, regions.get(k), bodies.get(k), accesses.get(k), token, runtime);
        }
    }

    /** Wraps the loop; the local that holds the region's token. */
    private static int wrap(ClassNode cn, MethodNode mn, LoopRegions.Region r, AbstractInsnNode header,
                             Set<AbstractInsnNode> body, String runtime) {
        InsnList insns = mn.instructions;
        int token = mn.maxLocals;
        mn.maxLocals += 1;
        // the body in list order, and its runs of consecutive nodes
        List<AbstractInsnNode> order = new ArrayList<>();
        for (AbstractInsnNode i = insns.getFirst(); i != null; i = i.getNext()) {
            if (body.contains(i)) {
                order.add(i);
            }
        }
        List<AbstractInsnNode[]> runs = new ArrayList<>();
        for (AbstractInsnNode i : order) {
            if (!runs.isEmpty() && runs.get(runs.size() - 1)[1].getNext() == i) {
                runs.get(runs.size() - 1)[1] = i;
            } else {
                runs.add(new AbstractInsnNode[] {i, i});
            }
        }
        // the handlers outside the loop that cover it, in table order (they cover the code added below as well)
        List<TryCatchBlockNode> enclosing = new ArrayList<>();
        int firstEnclosing = -1;
        // and those inside it whose handler is outside: exits, through a trampoline of their own
        Map<LabelNode, LabelNode> handlerTrampolines = new LinkedHashMap<>();
        for (int k = 0; k < mn.tryCatchBlocks.size(); k++) {
            TryCatchBlockNode t = mn.tryCatchBlocks.get(k);
            if (body.contains(t.handler) || !covers(insns, t, body)) {
                continue;
            }
            if (within(t, body)) {
                t.handler = handlerTrampolines.computeIfAbsent(t.handler, h -> new LabelNode());
                continue;
            }
            enclosing.add(t);
            if (firstEnclosing < 0) {
                firstEnclosing = k;
            }
        }
        InsnList tail = new InsnList();
        LabelNode tailStart = new LabelNode();
        LabelNode tailEnd = new LabelNode();
        tail.add(tailStart);
        // exits: jumps and switches out of the loop go through a trampoline per target
        Map<LabelNode, LabelNode> trampolines = new LinkedHashMap<>();
        for (AbstractInsnNode i : order) {
            if (i instanceof JumpInsnNode j && !body.contains(j.label)) {
                j.label = trampolines.computeIfAbsent(j.label, t -> new LabelNode());
            } else if (i instanceof TableSwitchInsnNode s) {
                s.dflt = out(s.dflt, body, trampolines);
                s.labels.replaceAll(l -> out(l, body, trampolines));
            } else if (i instanceof LookupSwitchInsnNode s) {
                s.dflt = out(s.dflt, body, trampolines);
                s.labels.replaceAll(l -> out(l, body, trampolines));
            }
        }
        for (Map.Entry<LabelNode, LabelNode> e : trampolines.entrySet()) {
            tail.add(e.getValue());
            exit(tail, token, runtime);
            tail.add(new JumpInsnNode(Opcodes.GOTO, e.getKey()));
        }
        for (Map.Entry<LabelNode, LabelNode> e : handlerTrampolines.entrySet()) {
            // the caught exception stays on the stack for the handler
            tail.add(e.getValue());
            exit(tail, token, runtime);
            tail.add(new JumpInsnNode(Opcodes.GOTO, e.getKey()));
        }
        // the exit on an exception: the token's exit, then the exception again
        LabelNode onThrow = new LabelNode();
        tail.add(onThrow);
        exit(tail, token, runtime);
        tail.add(new InsnNode(Opcodes.ATHROW));
        tail.add(tailEnd);
        // returns from inside the loop, and falling out of its last node
        for (AbstractInsnNode i : order) {
            int op = i.getOpcode();
            if (op >= Opcodes.IRETURN && op <= Opcodes.RETURN) {
                InsnList x = new InsnList();
                exit(x, token, runtime);
                insns.insertBefore(i, x);
            } else if (fallsThrough(i) && i.getNext() != null && !body.contains(i.getNext())) {
                InsnList x = new InsnList();
                exit(x, token, runtime);
                insns.insert(i, x);
            }
        }
        // the ranges the exit-on-throw handler covers: each run of the body
        List<TryCatchBlockNode> ours = new ArrayList<>();
        for (AbstractInsnNode[] run : runs) {
            LabelNode from = new LabelNode();
            LabelNode to = new LabelNode();
            insns.insertBefore(run[0], from);
            AbstractInsnNode last = run[1];
            // past the exit code inserted after the run's last node, if any
            while (last.getNext() != null && !body.contains(last.getNext()) && isExitCode(last.getNext(), runtime)) {
                last = last.getNext();
            }
            insns.insert(last, to);
            ours.add(new TryCatchBlockNode(from, to, onThrow, null));
        }
        int at = firstEnclosing < 0 ? mn.tryCatchBlocks.size() : firstEnclosing;
        mn.tryCatchBlocks.addAll(at, ours);
        for (TryCatchBlockNode t : enclosing) {
            mn.tryCatchBlocks.add(new TryCatchBlockNode(tailStart, tailEnd, t.handler, t.type));
        }
        // the entry: the arrays the locals hold, into the runtime; the token into its own local
        InsnList entry = new InsnList();
        LabelNode pre = new LabelNode();
        entry.add(pre);
        entry.add(new LdcInsnNode(Type.getObjectType(cn.name)));
        entry.add(new LdcInsnNode(LoopRegions.where(cn, mn, r.line()) + ": " + String.join(", ", r.names())));
        entry.add(new LdcInsnNode(String.join(";", r.callees())));
        entry.add(new LdcInsnNode(String.join(";", r.objectTypes()) + "|" + String.join(";", r.statics())));
        int[] values = new int[r.slots().length + r.objects().length];
        System.arraycopy(r.slots(), 0, values, 0, r.slots().length);
        System.arraycopy(r.objects(), 0, values, r.slots().length, r.objects().length);
        push(entry, values.length);
        entry.add(new TypeInsnNode(Opcodes.ANEWARRAY, "java/lang/Object"));
        for (int k = 0; k < values.length; k++) {
            entry.add(new InsnNode(Opcodes.DUP));
            push(entry, k);
            entry.add(new VarInsnNode(Opcodes.ALOAD, values[k]));
            entry.add(new InsnNode(Opcodes.AASTORE));
        }
        entry.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, LoopRegions.ENTER, LoopRegions.ENTER_DESC));
        entry.add(new VarInsnNode(Opcodes.ASTORE, token));
        LabelNode head;
        if (header instanceof LabelNode l) {
            head = l;
        } else {
            head = new LabelNode();
            insns.insertBefore(header, head);
        }
        AbstractInsnNode before = previousReal(head);
        boolean inline = before == null || !body.contains(before);
        // jumps from outside the loop into its header now go through the entry
        for (AbstractInsnNode i = insns.getFirst(); i != null; i = i.getNext()) {
            if (body.contains(i)) {
                continue;
            }
            if (i instanceof JumpInsnNode j && j.label == head) {
                j.label = pre;
            } else if (i instanceof TableSwitchInsnNode s) {
                s.dflt = s.dflt == head ? pre : s.dflt;
                s.labels.replaceAll(l -> l == head ? pre : l);
            } else if (i instanceof LookupSwitchInsnNode s) {
                s.dflt = s.dflt == head ? pre : s.dflt;
                s.labels.replaceAll(l -> l == head ? pre : l);
            }
        }
        if (inline) {
            // the ranges' start label for the header's run was inserted before the header: enter before it
            AbstractInsnNode first = head;
            while (first.getPrevious() instanceof LabelNode l && isRangeStart(mn, l, ours)) {
                first = l;
            }
            insns.insertBefore(first, entry);
        } else {
            entry.add(new JumpInsnNode(Opcodes.GOTO, head));
            insns.add(entry);
        }
        insns.add(tail);
        return token;
    }

    /**
     * The runtime's hooks in the loop's body: before each {@code @Kernels} call, and before each element load or
     * store the analysis marked, a call that gets the array (a copy of the reference; for a store, with the index,
     * while the value waits in a local of its own) and the token. The body's nodes stay where they were:
     * the hooks go between them, inside the ranges the exit-on-throw handler covers.
     */
    private static void hooks(MethodNode mn, LoopRegions.Region r, Set<AbstractInsnNode> body,
                              List<AbstractInsnNode> accesses, int token, String runtime) {
        InsnList insns = mn.instructions;
        Set<String> callees = Set.copyOf(r.callees());
        for (AbstractInsnNode i : body) {
            if (i instanceof MethodInsnNode m && callees.contains(m.owner + "." + m.name + m.desc)) {
                InsnList x = new InsnList();
                x.add(new VarInsnNode(Opcodes.ALOAD, token));
                x.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, LoopRegions.CALL, LoopRegions.CALL_DESC));
                insns.insertBefore(i, x);
            }
        }
        if (accesses.isEmpty()) {
            return;
        }
        int value = mn.maxLocals;
        mn.maxLocals += 2;
        for (AbstractInsnNode i : accesses) {
            int op = i.getOpcode();
            boolean store = op >= Opcodes.IASTORE && op <= Opcodes.SASTORE;
            InsnList x = new InsnList();
            int valueOp = store ? valueStore(op) : -1;
            if (store) {
                // [array, index, value] -> [array, index, array, index] -> hook -> [array, index, value]
                x.add(new VarInsnNode(valueOp, value));
                x.add(new InsnNode(Opcodes.DUP2));
                x.add(new VarInsnNode(Opcodes.ALOAD, token));
                x.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, LoopRegions.WRITE, LoopRegions.WRITE_DESC));
                x.add(new VarInsnNode(valueOp + (Opcodes.ILOAD - Opcodes.ISTORE), value));
            } else {
                // [array, index] -> [index, array, array] -> hook -> [array, index]
                x.add(new InsnNode(Opcodes.SWAP));
                x.add(new InsnNode(Opcodes.DUP));
                x.add(new VarInsnNode(Opcodes.ALOAD, token));
                x.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, LoopRegions.READ, LoopRegions.READ_DESC));
                x.add(new InsnNode(Opcodes.SWAP));
            }
            insns.insertBefore(i, x);
        }
    }

    /** The local store for the value an array store of {@code op} takes. */
    private static int valueStore(int op) {
        return switch (op) {
            case Opcodes.LASTORE -> Opcodes.LSTORE;
            case Opcodes.FASTORE -> Opcodes.FSTORE;
            case Opcodes.DASTORE -> Opcodes.DSTORE;
            case Opcodes.AASTORE -> Opcodes.ASTORE;
            default -> Opcodes.ISTORE;
        };
    }

    private static boolean isRangeStart(MethodNode mn, LabelNode l, List<TryCatchBlockNode> ours) {
        for (TryCatchBlockNode t : ours) {
            if (t.start == l) {
                return true;
            }
        }
        return false;
    }

    /** The nearest node before {@code n} that is an instruction, a label or null. */
    private static AbstractInsnNode previousReal(AbstractInsnNode n) {
        AbstractInsnNode p = n.getPrevious();
        while (p != null && p.getOpcode() < 0 && !(p instanceof LabelNode)) {
            p = p.getPrevious();
        }
        return p;
    }

    private static boolean isExitCode(AbstractInsnNode n, String runtime) {
        return n instanceof VarInsnNode v && v.getOpcode() == Opcodes.ALOAD && n.getNext() instanceof MethodInsnNode m
                && m.owner.equals(runtime) && m.name.equals(LoopRegions.EXIT)
                || n instanceof MethodInsnNode m2 && m2.owner.equals(runtime) && m2.name.equals(LoopRegions.EXIT);
    }

    private static LabelNode out(LabelNode l, Set<AbstractInsnNode> body, Map<LabelNode, LabelNode> trampolines) {
        return body.contains(l) ? l : trampolines.computeIfAbsent(l, t -> new LabelNode());
    }

    private static boolean covers(InsnList insns, TryCatchBlockNode t, Set<AbstractInsnNode> body) {
        for (AbstractInsnNode i = t.start; i != null && i != t.end; i = i.getNext()) {
            if (body.contains(i) && i.getOpcode() >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether every instruction a try block covers is in the loop. */
    private static boolean within(TryCatchBlockNode t, Set<AbstractInsnNode> body) {
        for (AbstractInsnNode i = t.start; i != null && i != t.end; i = i.getNext()) {
            if (i.getOpcode() >= 0 && !body.contains(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean fallsThrough(AbstractInsnNode i) {
        int op = i.getOpcode();
        return !(op == Opcodes.GOTO || op == Opcodes.ATHROW || op >= Opcodes.IRETURN && op <= Opcodes.RETURN
                || op == Opcodes.TABLESWITCH || op == Opcodes.LOOKUPSWITCH);
    }

    private static void exit(InsnList code, int token, String runtime) {
        code.add(new VarInsnNode(Opcodes.ALOAD, token));
        code.add(new MethodInsnNode(Opcodes.INVOKESTATIC, runtime, LoopRegions.EXIT, LoopRegions.EXIT_DESC));
    }

    private static void push(InsnList code, int value) {
        if (value <= 5) {
            code.add(new InsnNode(Opcodes.ICONST_0 + value));
        } else if (value <= Byte.MAX_VALUE) {
            code.add(new IntInsnNode(Opcodes.BIPUSH, value));
        } else {
            code.add(new IntInsnNode(Opcodes.SIPUSH, value));
        }
    }
}
