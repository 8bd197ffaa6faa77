package org.acc4j.compiler.frontend;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.acc4j.compiler.Unsupported;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicInterpreter;
import org.objectweb.asm.tree.analysis.BasicValue;

/**
 * The control-flow graph of one method, in basic blocks, with dominators and post-dominators.
 *
 * <p>Edges come from ASM's {@link Analyzer}, which also verifies the method. A method with exception edges
 * (try/catch) is rejected here: regions never contain handlers.
 */
final class Cfg {
    /** A maximal straight-line run of instructions [start, end). */
    static final class Block {
        final int id;
        final int start;
        final int end;
        final List<Block> succs = new ArrayList<>(2);
        final List<Block> preds = new ArrayList<>(2);
        int rpo = -1;
        /** The operand stack's kinds on entry ('I', 'J', 'F', 'D', or 'A' for a reference), bottom first. */
        char[] entryStack = new char[0];
        Block idom;
        Block ipdom;

        Block(int id, int start, int end) {
            this.id = id;
            this.start = start;
            this.end = end;
        }

        @Override
        public String toString() {
            return "B" + id + "[" + start + "," + end + ")";
        }
    }

    final MethodNode method;
    final List<Block> blocks = new ArrayList<>();
    final Block[] blockAt;
    private final List<Block> rpoOrder = new ArrayList<>();

    /** The operand stack's depth before each instruction (-1 where unreachable): 0 between statements. */
    final int[] stackDepth;

    private Cfg(MethodNode method) {
        this.method = method;
        this.blockAt = new Block[method.instructions.size()];
        this.stackDepth = new int[method.instructions.size()];
    }

    static Cfg build(String owner, MethodNode mn) {
        int n = mn.instructions.size();
        List<BitSet> succ = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            succ.add(new BitSet());
        }
        boolean[] exceptional = new boolean[1];
        Analyzer<BasicValue> analyzer = new Analyzer<>(new BasicInterpreter()) {
            @Override
            protected void newControlFlowEdge(int insn, int successor) {
                succ.get(insn).set(successor);
            }

            @Override
            protected boolean newControlFlowExceptionEdge(int insn, int successor) {
                exceptional[0] = true;
                return true;
            }
        };
        try {
            analyzer.analyze(owner, mn);
        } catch (AnalyzerException e) {
            throw new Unsupported(0, "bytecode the verifier rejects (" + e.getMessage() + ")");
        }
        if (exceptional[0] || !mn.tryCatchBlocks.isEmpty()) {
            throw new Unsupported(0, "try/catch");
        }
        var frames = analyzer.getFrames();
        Cfg cfg = new Cfg(mn);
        for (int i = 0; i < n; i++) {
            cfg.stackDepth[i] = frames[i] == null ? -1 : frames[i].getStackSize();
        }
        // leaders: entry, jump targets, and instructions after a branch
        int[] predCount = new int[n];
        for (int i = 0; i < n; i++) {
            for (int s = succ.get(i).nextSetBit(0); s >= 0; s = succ.get(i).nextSetBit(s + 1)) {
                predCount[s]++;
            }
        }
        BitSet leader = new BitSet(n);
        leader.set(0);
        for (int i = 0; i < n; i++) {
            if (frames[i] == null) {
                continue;
            }
            BitSet s = succ.get(i);
            boolean straight = s.cardinality() == 1 && s.get(i + 1) && !isJump(mn.instructions.get(i));
            if (!straight) {
                for (int t = s.nextSetBit(0); t >= 0; t = s.nextSetBit(t + 1)) {
                    leader.set(t);
                }
                if (i + 1 < n) {
                    leader.set(i + 1);
                }
            }
            if (predCount[i] > 1) {
                leader.set(i);
            }
        }
        int start = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || leader.get(i)) {
                if (frames[start] != null) {
                    Block b = new Block(cfg.blocks.size(), start, i);
                    var f = frames[start];
                    b.entryStack = new char[f.getStackSize()];
                    for (int k = 0; k < b.entryStack.length; k++) {
                        org.objectweb.asm.Type t = f.getStack(k).getType();
                        b.entryStack[k] = t == null ? 'A' : t.getSort() == org.objectweb.asm.Type.OBJECT
                                || t.getSort() == org.objectweb.asm.Type.ARRAY ? 'A' : t.getDescriptor().charAt(0);
                    }
                    cfg.blocks.add(b);
                    for (int k = start; k < i; k++) {
                        cfg.blockAt[k] = b;
                    }
                }
                start = i;
            }
        }
        for (Block b : cfg.blocks) {
            BitSet s = succ.get(b.end - 1);
            // fall-through successor first, then the jump target, so conditional blocks read [else-of-jump, jump]
            if (s.get(b.end) && cfg.blockAt[b.end] != null) {
                link(b, cfg.blockAt[b.end]);
            }
            for (int t = s.nextSetBit(0); t >= 0; t = s.nextSetBit(t + 1)) {
                if (t != b.end) {
                    link(b, cfg.blockAt[t]);
                }
            }
        }
        cfg.computeRpo();
        cfg.computeDominators();
        cfg.computePostDominators();
        return cfg;
    }

    private static boolean isJump(AbstractInsnNode insn) {
        return insn instanceof JumpInsnNode || insn.getOpcode() == Opcodes.TABLESWITCH
                || insn.getOpcode() == Opcodes.LOOKUPSWITCH;
    }

    private static void link(Block from, Block to) {
        if (!from.succs.contains(to)) {
            from.succs.add(to);
            to.preds.add(from);
        }
    }

    Block entry() {
        return blocks.get(0);
    }

    Block blockStartingAt(int insn) {
        return blockAt[insn];
    }

    /** Whether {@code a} dominates {@code b}. */
    static boolean dominates(Block a, Block b) {
        for (Block x = b; x != null; x = x.idom == x ? null : x.idom) {
            if (x == a) {
                return true;
            }
        }
        return false;
    }

    private void computeRpo() {
        BitSet seen = new BitSet();
        List<Block> post = new ArrayList<>();
        dfs(entry(), seen, post);
        for (int i = post.size() - 1; i >= 0; i--) {
            Block b = post.get(i);
            b.rpo = rpoOrder.size();
            rpoOrder.add(b);
        }
    }

    private static void dfs(Block b, BitSet seen, List<Block> post) {
        // iterative enough for method sizes javac produces; recursion depth is the CFG's depth
        seen.set(b.id);
        for (Block s : b.succs) {
            if (!seen.get(s.id)) {
                dfs(s, seen, post);
            }
        }
        post.add(b);
    }

    /** Cooper, Harvey and Kennedy's iterative dominator algorithm over reverse post-order. */
    private void computeDominators() {
        Block entry = entry();
        entry.idom = entry;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Block b : rpoOrder) {
                if (b == entry) {
                    continue;
                }
                Block idom = null;
                for (Block p : b.preds) {
                    if (p.idom != null) {
                        idom = idom == null ? p : intersect(p, idom);
                    }
                }
                if (idom != b.idom) {
                    b.idom = idom;
                    changed = true;
                }
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

    /**
     * Immediate post-dominators, by the same algorithm on the reversed graph with a virtual exit joined from
     * every block without successors. A block whose ipdom is the virtual exit gets null.
     */
    private void computePostDominators() {
        int n = blocks.size();
        int exit = n;
        int[] order = new int[n + 1];
        int[] pos = new int[n + 1];
        int[] ipdom = new int[n + 1];
        java.util.Arrays.fill(ipdom, -1);
        // reverse post-order of the reversed graph, from the virtual exit
        List<Integer> post = new ArrayList<>();
        BitSet seen = new BitSet();
        seen.set(exit);
        for (Block b : blocks) {
            if (b.succs.isEmpty() && !seen.get(b.id)) {
                reverseDfs(b, seen, post);
            }
        }
        post.add(exit);
        for (int i = 0; i < post.size(); i++) {
            order[i] = post.get(post.size() - 1 - i);
            pos[order[i]] = i;
        }
        ipdom[exit] = exit;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int k = 1; k < post.size(); k++) {
                int b = order[k];
                Block blk = blocks.get(b);
                int idom = -1;
                List<Integer> rsucc = new ArrayList<>();
                if (blk.succs.isEmpty()) {
                    rsucc.add(exit);
                }
                for (Block s : blk.succs) {
                    rsucc.add(s.id);
                }
                for (int s : rsucc) {
                    if (ipdom[s] >= 0) {
                        idom = idom < 0 ? s : intersectPost(s, idom, ipdom, pos);
                    }
                }
                if (idom != ipdom[b]) {
                    ipdom[b] = idom;
                    changed = true;
                }
            }
        }
        for (Block b : blocks) {
            b.ipdom = ipdom[b.id] >= 0 && ipdom[b.id] != exit ? blocks.get(ipdom[b.id]) : null;
        }
    }

    private void reverseDfs(Block b, BitSet seen, List<Integer> post) {
        seen.set(b.id);
        for (Block p : b.preds) {
            if (!seen.get(p.id)) {
                reverseDfs(p, seen, post);
            }
        }
        post.add(b.id);
    }

    private static int intersectPost(int a, int b, int[] ipdom, int[] pos) {
        while (a != b) {
            while (pos[a] > pos[b]) {
                a = ipdom[a];
            }
            while (pos[b] > pos[a]) {
                b = ipdom[b];
            }
        }
        return a;
    }

    /** The blocks of the natural loop with this header: the header and all that reach a back edge to it. */
    BitSet naturalLoop(Block header) {
        BitSet body = new BitSet();
        body.set(header.id);
        List<Block> work = new ArrayList<>();
        for (Block p : header.preds) {
            if (dominates(header, p)) {
                if (!body.get(p.id)) {
                    body.set(p.id);
                    work.add(p);
                }
            }
        }
        while (!work.isEmpty()) {
            Block b = work.remove(work.size() - 1);
            for (Block p : b.preds) {
                if (!body.get(p.id)) {
                    body.set(p.id);
                    work.add(p);
                }
            }
        }
        return body;
    }

    /** In {@link #loopPostDominators}: the end of the iteration (the edge back to the loop's head). */
    static final int NEXT_ITERATION = -2;

    /** In {@link #loopPostDominators}: every path from the block leaves the loop (by a break). */
    static final int LEAVES = -1;

    /**
     * The nearest block that every path from all of {@code blocks} reaches (their common post-dominator), or null when
     * none does (a path ends the method first).
     */
    static Block commonPostDominator(java.util.Collection<Block> blocks) {
        Block common = null;
        for (Block b : blocks) {
            if (common == null) {
                common = b;
                continue;
            }
            java.util.Set<Block> chain = new java.util.HashSet<>();
            for (Block x = b; x != null; x = x.ipdom) {
                chain.add(x);
            }
            while (common != null && !chain.contains(common)) {
                common = common.ipdom;
            }
            if (common == null) {
                return null;
            }
        }
        return common;
    }

    /**
     * Immediate post-dominators of the blocks of one loop's {@code body}, within one iteration: an edge back to
     * {@code header} goes to a virtual end of the iteration ({@link #NEXT_ITERATION}), an edge that leaves the body
     * (a break) is dropped, so the arms of an {@code if} that breaks still meet where the other arm goes on. Indexed by
     * block id: the post-dominator's id, {@link #NEXT_ITERATION}, or {@link #LEAVES} for a block whose every path
     * breaks (and for blocks outside the body).
     */
    int[] loopPostDominators(Block header, BitSet body) {
        int n = blocks.size();
        int sink = n;
        // forward successors inside the iteration, the back edge mapped to the sink
        List<List<Integer>> succ = new ArrayList<>();
        List<List<Integer>> pred = new ArrayList<>();
        for (int i = 0; i <= n; i++) {
            succ.add(new ArrayList<>());
            pred.add(new ArrayList<>());
        }
        for (int id = body.nextSetBit(0); id >= 0; id = body.nextSetBit(id + 1)) {
            for (Block s : blocks.get(id).succs) {
                int to = s == header ? sink : body.get(s.id) ? s.id : -1;
                if (to >= 0 && !succ.get(id).contains(to)) {
                    succ.get(id).add(to);
                    pred.get(to).add(id);
                }
            }
        }
        // reverse post-order of the reversed graph from the sink
        List<Integer> post = new ArrayList<>();
        BitSet seen = new BitSet();
        postOrder(sink, pred, seen, post);
        int[] pos = new int[n + 1];
        int[] ipdom = new int[n + 1];
        java.util.Arrays.fill(ipdom, -1);
        int[] order = new int[post.size()];
        for (int i = 0; i < post.size(); i++) {
            order[i] = post.get(post.size() - 1 - i);
            pos[order[i]] = i;
        }
        ipdom[sink] = sink;
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int k = 1; k < order.length; k++) {
                int b = order[k];
                int idom = -1;
                for (int s : succ.get(b)) {
                    if (ipdom[s] >= 0) {
                        idom = idom < 0 ? s : intersectPost(s, idom, ipdom, pos);
                    }
                }
                if (idom != ipdom[b]) {
                    ipdom[b] = idom;
                    changed = true;
                }
            }
        }
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = ipdom[i] == sink ? NEXT_ITERATION : ipdom[i] < 0 ? LEAVES : ipdom[i];
        }
        return out;
    }

    private static void postOrder(int node, List<List<Integer>> next, BitSet seen, List<Integer> post) {
        seen.set(node);
        for (int p : next.get(node)) {
            if (!seen.get(p)) {
                postOrder(p, next, seen, post);
            }
        }
        post.add(node);
    }

    /**
     * The blocks a loop's breaks run before control reaches {@code follow}, the first block after the loop: those
     * reachable from {@code exits} (the loop's successors outside {@code natural}) without passing {@code follow}.
     */
    BitSet breakPaths(java.util.Collection<Block> exits, Block follow) {
        BitSet out = new BitSet();
        List<Block> work = new ArrayList<>();
        for (Block e : exits) {
            if (e != follow && !out.get(e.id)) {
                out.set(e.id);
                work.add(e);
            }
        }
        while (!work.isEmpty()) {
            Block b = work.remove(work.size() - 1);
            for (Block s : b.succs) {
                if (s != follow && !out.get(s.id)) {
                    out.set(s.id);
                    work.add(s);
                }
            }
        }
        return out;
    }

    /** Whether some predecessor of {@code b} is a back edge (b dominates it). */
    static boolean isLoopHeader(Block b) {
        for (Block p : b.preds) {
            if (dominates(b, p)) {
                return true;
            }
        }
        return false;
    }
}
