package org.acc4j.compiler.frontend;

import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.IntInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.LookupSwitchInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TableSwitchInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * Lowers {@code tableswitch} and {@code lookupswitch} to the tests javac writes for an {@code if}/{@code else}
 * chain: the key goes to a new local, each case's value is compared with it in order ({@code if_icmpeq} to the
 * case's label), and a {@code goto} reaches the default. The cases' code, fall-through included, is left as it is,
 * so the method computes what the switch computes; the reader then sees only conditional jumps.
 */
final class Switches {
    private Switches() {
    }

    /** {@code method} itself when it has no switch, else a copy of it with every switch lowered. */
    static MethodNode lower(MethodNode method) {
        boolean any = false;
        for (AbstractInsnNode i : method.instructions) {
            any |= i.getOpcode() == Opcodes.TABLESWITCH || i.getOpcode() == Opcodes.LOOKUPSWITCH;
        }
        if (!any) {
            return method;
        }
        MethodNode copy = new MethodNode(Opcodes.ASM9, method.access, method.name, method.desc, method.signature,
                method.exceptions == null ? null : method.exceptions.toArray(new String[0]));
        method.accept(copy);
        for (AbstractInsnNode i : copy.instructions.toArray()) {
            if (i instanceof TableSwitchInsnNode t) {
                int[] keys = new int[t.labels.size()];
                for (int k = 0; k < keys.length; k++) {
                    keys[k] = t.min + k;
                }
                replace(copy, i, keys, t.labels, t.dflt);
            } else if (i instanceof LookupSwitchInsnNode l) {
                replace(copy, i, l.keys.stream().mapToInt(Integer::intValue).toArray(), l.labels, l.dflt);
            }
        }
        return copy;
    }

    private static void replace(MethodNode m, AbstractInsnNode at, int[] keys, List<LabelNode> labels,
                                LabelNode dflt) {
        int slot = m.maxLocals;
        m.maxLocals += 1;
        m.maxStack = Math.max(m.maxStack, 2);
        InsnList tests = new InsnList();
        tests.add(new VarInsnNode(Opcodes.ISTORE, slot));
        for (int k = 0; k < keys.length; k++) {
            if (labels.get(k) == dflt) {
                continue;
            }
            tests.add(new VarInsnNode(Opcodes.ILOAD, slot));
            tests.add(constant(keys[k]));
            tests.add(new JumpInsnNode(Opcodes.IF_ICMPEQ, labels.get(k)));
        }
        tests.add(new JumpInsnNode(Opcodes.GOTO, dflt));
        m.instructions.insert(at, tests);
        m.instructions.remove(at);
    }

    private static AbstractInsnNode constant(int v) {
        if (v >= -1 && v <= 5) {
            return new org.objectweb.asm.tree.InsnNode(Opcodes.ICONST_0 + v);
        }
        if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
            return new IntInsnNode(Opcodes.BIPUSH, v);
        }
        if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            return new IntInsnNode(Opcodes.SIPUSH, v);
        }
        return new LdcInsnNode(v);
    }
}
