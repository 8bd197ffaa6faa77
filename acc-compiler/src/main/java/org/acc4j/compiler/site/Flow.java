package org.acc4j.compiler.site;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.IincInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicInterpreter;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.Frame;

/**
 * The whole-method facts the launch-site planner needs, host code included: each instruction's successors (normal
 * and exceptional), typed frames, basic blocks with dominators, the natural loops as a forest, and the live
 * locals before each instruction.
 *
 * <p>Unlike the kernel frontend's CFG, this one accepts any verifiable method: try/catch, calls, allocation and
 * returns are host code here.
 */
final class Flow {
    final MethodNode method;
    final int size;
    /** Normal successors of each instruction. */
    final BitSet[] next;
    /** Exception-handler successors of each instruction. */
    final BitSet[] handlers;
    final Frame<BasicValue>[] frames;
    final List<Block> blocks = new ArrayList<>();
    final Block[] blockAt;
    /** The natural loops, outermost first, each with its inner loops. */
    final List<Loop> roots = new ArrayList<>();
    /** Locals live before each instruction. */
    final BitSet[] liveIn;

    /** A maximal straight-line run of instructions [start, end). */
    static final class Block {
        final int id;
        final int start;
        final int end;
        final List<Block> succs = new ArrayList<>(2);
        final List<Block> preds = new ArrayList<>(2);
        int rpo = -1;
        Block idom;

        Block(int id, int start, int end) {
            this.id = id;
            this.start = start;
            this.end = end;
        }
    }

    /** A natural loop: its header, its blocks, and the loops directly inside it, in program order. */
    static final class Loop {
        final Block header;
        final BitSet body;
        final List<Loop> inner = new ArrayList<>();
        Loop outer;
        /** The instruction range [first, last] the loop's blocks span. */
        int first;
        int last;

        Loop(Block header, BitSet body) {
            this.header = header;
            this.body = body;
        }
    }

    @SuppressWarnings("unchecked")
    private Flow(MethodNode method) {
        this.method = method;
        this.size = method.instructions.size();
        this.next = new BitSet[size];
        this.handlers = new BitSet[size];
        for (int i = 0; i < size; i++) {
            next[i] = new BitSet();
            handlers[i] = new BitSet();
        }
        this.blockAt = new Block[size];
        this.frames = new Frame[size];
        this.liveIn = new BitSet[size + 1];
    }

    static Flow of(String owner, MethodNode mn) throws AnalyzerException {
        Flow f = new Flow(mn);
        Analyzer<BasicValue> a = new Analyzer<>(new Typed()) {
            @Override
            protected void newControlFlowEdge(int insn, int successor) {
                f.next[insn].set(successor);
            }

            @Override
            protected boolean newControlFlowExceptionEdge(int insn, int successor) {
                f.handlers[insn].set(successor);
                return true;
            }
        };
        Frame<BasicValue>[] frames = a.analyze(owner, mn);
        System.arraycopy(frames, 0, f.frames, 0, f.size);
        f.buildBlocks();
        f.dominators();
        f.loops();
        f.liveness();
        return f;
    }

    boolean reachable(int insn) {
        return frames[insn] != null;
    }

    // ---------------------------------------------------------------- blocks and dominators

    private void buildBlocks() {
        BitSet leader = new BitSet(size);
        leader.set(0);
        int[] preds = new int[size];
        for (int i = 0; i < size; i++) {
            for (int s = next[i].nextSetBit(0); s >= 0; s = next[i].nextSetBit(s + 1)) {
                preds[s]++;
            }
            for (int s = handlers[i].nextSetBit(0); s >= 0; s = handlers[i].nextSetBit(s + 1)) {
                leader.set(s);
            }
        }
        for (int i = 0; i < size; i++) {
            if (!reachable(i)) {
                continue;
            }
            AbstractInsnNode insn = method.instructions.get(i);
            boolean straight = next[i].cardinality() == 1 && next[i].get(i + 1) && !isJump(insn);
            if (!straight) {
                for (int t = next[i].nextSetBit(0); t >= 0; t = next[i].nextSetBit(t + 1)) {
                    leader.set(t);
                }
                if (i + 1 < size) {
                    leader.set(i + 1);
                }
            }
            if (preds[i] > 1) {
                leader.set(i);
            }
        }
        int start = 0;
        for (int i = 1; i <= size; i++) {
            if (i == size || leader.get(i)) {
                if (reachable(start)) {
                    Block b = new Block(blocks.size(), start, i);
                    blocks.add(b);
                    for (int k = start; k < i; k++) {
                        blockAt[k] = b;
                    }
                }
                start = i;
            }
        }
        for (Block b : blocks) {
            int last = b.end - 1;
            BitSet all = (BitSet) next[last].clone();
            for (int k = b.start; k <= last; k++) {
                all.or(handlers[k]);
            }
            for (int t = all.nextSetBit(0); t >= 0; t = all.nextSetBit(t + 1)) {
                Block to = blockAt[t];
                if (to != null && !b.succs.contains(to)) {
                    b.succs.add(to);
                    to.preds.add(b);
                }
            }
        }
    }

    static boolean isJump(AbstractInsnNode insn) {
        return insn instanceof JumpInsnNode || insn.getOpcode() == Opcodes.TABLESWITCH
                || insn.getOpcode() == Opcodes.LOOKUPSWITCH;
    }

    private void dominators() {
        List<Block> post = new ArrayList<>();
        BitSet seen = new BitSet();
        dfs(blocks.get(0), seen, post);
        List<Block> rpo = new ArrayList<>();
        for (int i = post.size() - 1; i >= 0; i--) {
            Block b = post.get(i);
            b.rpo = rpo.size();
            rpo.add(b);
        }
        Block entry = blocks.get(0);
        entry.idom = entry;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : rpo) {
                if (b == entry) {
                    continue;
                }
                Block d = null;
                for (Block p : b.preds) {
                    if (p.idom != null) {
                        d = d == null ? p : intersect(p, d);
                    }
                }
                if (d != b.idom) {
                    b.idom = d;
                    changed = true;
                }
            }
        }
    }

    private static void dfs(Block b, BitSet seen, List<Block> post) {
        // iterative, so that long methods cannot overflow the stack
        List<Block> stack = new ArrayList<>();
        List<Integer> index = new ArrayList<>();
        seen.set(b.id);
        stack.add(b);
        index.add(0);
        while (!stack.isEmpty()) {
            int top = stack.size() - 1;
            Block cur = stack.get(top);
            int k = index.get(top);
            if (k < cur.succs.size()) {
                index.set(top, k + 1);
                Block s = cur.succs.get(k);
                if (!seen.get(s.id)) {
                    seen.set(s.id);
                    stack.add(s);
                    index.add(0);
                }
            } else {
                post.add(cur);
                stack.remove(top);
                index.remove(top);
            }
        }
    }

    private static Block intersect(Block a, Block b) {
        while (a != b) {
            while (a.rpo > b.rpo) {
                a = a.idom;
            }
            while (b.rpo > a.rpo) {
                b = b.idom;
            }
        }
        return a;
    }

    boolean dominates(Block a, Block b) {
        for (Block x = b; ; x = x.idom) {
            if (x == a) {
                return true;
            }
            if (x == null || x.idom == x) {
                return x == a;
            }
        }
    }

    // ---------------------------------------------------------------- loops

    private void loops() {
        List<Loop> all = new ArrayList<>();
        for (Block h : blocks) {
            BitSet body = null;
            for (Block p : h.preds) {
                if (p.rpo >= 0 && h.rpo >= 0 && dominates(h, p)) {
                    if (body == null) {
                        body = new BitSet();
                        body.set(h.id);
                    }
                    collect(p, h, body);
                }
            }
            if (body != null) {
                Loop l = new Loop(h, body);
                l.first = Integer.MAX_VALUE;
                l.last = -1;
                for (int b = body.nextSetBit(0); b >= 0; b = body.nextSetBit(b + 1)) {
                    l.first = Math.min(l.first, blocks.get(b).start);
                    l.last = Math.max(l.last, blocks.get(b).end - 1);
                }
                all.add(l);
            }
        }
        // nest: each loop's parent is the smallest other loop whose body holds its header
        all.sort((x, y) -> Integer.compare(x.header.start, y.header.start));
        for (Loop l : all) {
            Loop parent = null;
            for (Loop o : all) {
                if (o != l && o.body.get(l.header.id) && contains(o.body, l.body)
                        && (parent == null || o.body.cardinality() < parent.body.cardinality())) {
                    parent = o;
                }
            }
            l.outer = parent;
            (parent == null ? roots : parent.inner).add(l);
        }
    }

    private static boolean contains(BitSet outer, BitSet inner) {
        BitSet x = (BitSet) inner.clone();
        x.andNot(outer);
        return x.isEmpty();
    }

    private void collect(Block from, Block header, BitSet body) {
        List<Block> work = new ArrayList<>();
        if (!body.get(from.id)) {
            body.set(from.id);
            work.add(from);
        }
        while (!work.isEmpty()) {
            Block b = work.remove(work.size() - 1);
            for (Block p : b.preds) {
                if (!body.get(p.id) && p != header) {
                    body.set(p.id);
                    work.add(p);
                }
            }
        }
    }

    // ---------------------------------------------------------------- liveness

    private void liveness() {
        for (int i = 0; i <= size; i++) {
            liveIn[i] = new BitSet();
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int i = size - 1; i >= 0; i--) {
                if (!reachable(i)) {
                    continue;
                }
                BitSet out = new BitSet();
                for (int s = next[i].nextSetBit(0); s >= 0; s = next[i].nextSetBit(s + 1)) {
                    out.or(liveIn[s]);
                }
                for (int s = handlers[i].nextSetBit(0); s >= 0; s = handlers[i].nextSetBit(s + 1)) {
                    out.or(liveIn[s]);
                }
                AbstractInsnNode insn = method.instructions.get(i);
                int w = written(insn);
                if (w >= 0) {
                    out.clear(w);
                }
                int r = read(insn);
                if (r >= 0) {
                    out.set(r);
                }
                if (!out.equals(liveIn[i])) {
                    liveIn[i] = out;
                    changed = true;
                }
            }
        }
    }

    /** The local an instruction reads, or -1. */
    static int read(AbstractInsnNode insn) {
        if (insn instanceof IincInsnNode inc) {
            return inc.var;
        }
        if (insn instanceof VarInsnNode v && v.getOpcode() >= Opcodes.ILOAD && v.getOpcode() <= Opcodes.ALOAD) {
            return v.var;
        }
        if (insn instanceof VarInsnNode v && v.getOpcode() == Opcodes.RET) {
            return v.var;
        }
        return -1;
    }

    /** The local an instruction writes, or -1. */
    static int written(AbstractInsnNode insn) {
        if (insn instanceof IincInsnNode inc) {
            return inc.var;
        }
        if (insn instanceof VarInsnNode v && v.getOpcode() >= Opcodes.ISTORE && v.getOpcode() <= Opcodes.ASTORE) {
            return v.var;
        }
        return -1;
    }

    /** The index of {@code insn} in the method. */
    int index(AbstractInsnNode insn) {
        return method.instructions.indexOf(insn);
    }

    InsnList insns() {
        return method.instructions;
    }

    /**
     * ASM's basic interpreter with the precise types of references kept ({@code [D}, {@code Lpkg/C;}), without
     * loading any class: two different reference types merge to {@code java/lang/Object}.
     */
    static final class Typed extends BasicInterpreter {
        static final BasicValue OBJECT = new BasicValue(Type.getObjectType("java/lang/Object"));

        Typed() {
            super(Opcodes.ASM9);
        }

        @Override
        public BasicValue newValue(Type type) {
            if (type != null && (type.getSort() == Type.ARRAY || type.getSort() == Type.OBJECT)) {
                return new BasicValue(type);
            }
            return super.newValue(type);
        }

        @Override
        public BasicValue binaryOperation(AbstractInsnNode insn, BasicValue value1, BasicValue value2)
                throws AnalyzerException {
            if (insn.getOpcode() == Opcodes.AALOAD && value1.getType() != null
                    && value1.getType().getSort() == Type.ARRAY) {
                return newValue(Type.getType(value1.getType().getDescriptor().substring(1)));
            }
            return super.binaryOperation(insn, value1, value2);
        }

        @Override
        public BasicValue merge(BasicValue v, BasicValue w) {
            if (v.equals(w)) {
                return v;
            }
            Type a = v.getType();
            Type b = w.getType();
            if (isReference(a) && isReference(b)) {
                if ("null".equals(a.getInternalName())) {
                    return w;
                }
                if ("null".equals(b.getInternalName())) {
                    return v;
                }
                return OBJECT;
            }
            return BasicValue.UNINITIALIZED_VALUE;
        }

        static boolean isReference(Type t) {
            return t != null && (t.getSort() == Type.ARRAY || t.getSort() == Type.OBJECT);
        }
    }
}
