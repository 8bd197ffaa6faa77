package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * The element accesses of a {@code @Kernels} method's host code that the runtime follows one by one: each element
 * load and store of a primitive array, and each store of a row into a two-dimensional primitive array, outside the
 * sites' nests. The rewrite calls the runtime before each ({@link MethodPlan.Access}), with the array (and the
 * index), so that the call's data scope moves only what host code touches: the row it reads, the elements it writes,
 * the row table when rows are swapped. Loading a row of a two-dimensional array needs nothing (kernels never replace
 * rows), so it neither calls the runtime nor counts as an effect.
 *
 * <p>These instructions are left out of {@link HostEffects}; what host code does through calls (an array passed to
 * a method) stays an effect of the whole array.
 */
final class HostAccesses {
    /** The accesses, in instruction order. */
    final List<MethodPlan.Access> accesses = new ArrayList<>();
    /** The instructions whose effects the runtime follows by itself: the accesses and the row loads. */
    final BitSet exact = new BitSet();

    HostAccesses(Flow flow, List<int[]> siteRanges) {
        for (int i = 0; i < flow.size; i++) {
            Frame<BasicValue> f = flow.frames[i];
            if (f == null || inside(i, siteRanges)) {
                continue;
            }
            AbstractInsnNode insn = flow.method.instructions.get(i);
            int op = insn.getOpcode();
            switch (op) {
                case Opcodes.IALOAD, Opcodes.LALOAD, Opcodes.FALOAD, Opcodes.DALOAD, Opcodes.BALOAD, Opcodes.CALOAD,
                        Opcodes.SALOAD -> add(i, MethodPlan.Access.READ);
                case Opcodes.IASTORE, Opcodes.LASTORE, Opcodes.FASTORE, Opcodes.DASTORE, Opcodes.BASTORE,
                        Opcodes.CASTORE, Opcodes.SASTORE -> add(i, MethodPlan.Access.WRITE);
                case Opcodes.AALOAD -> {
                    if (rank2(f, 2)) {
                        exact.set(i);
                    }
                }
                case Opcodes.AASTORE -> {
                    if (rank2(f, 3)) {
                        add(i, MethodPlan.Access.ROW_STORE);
                    }
                }
                default -> {
                }
            }
        }
    }

    private void add(int insn, int kind) {
        accesses.add(new MethodPlan.Access(insn, kind));
        exact.set(insn);
    }

    /** Whether the array operand, {@code depth} from the top of the stack, is a two-dimensional primitive array. */
    private static boolean rank2(Frame<BasicValue> f, int depth) {
        Type t = f.getStack(f.getStackSize() - depth).getType();
        return t != null && t.getSort() == Type.ARRAY && t.getDimensions() == 2
                && t.getElementType().getSort() >= Type.BOOLEAN && t.getElementType().getSort() <= Type.DOUBLE;
    }

    private static boolean inside(int insn, List<int[]> ranges) {
        for (int[] r : ranges) {
            if (insn >= r[0] && insn <= r[1]) {
                return true;
            }
        }
        return false;
    }
}
