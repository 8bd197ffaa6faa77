package org.acc4j.compiler.site;

import java.util.List;
import org.acc4j.compiler.Compiler;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * A {@code @Kernels} method cut into launch sites: each loop nest that can run on the device becomes a site, a call
 * into the runtime placed where control enters the nest, whose device path skips the nest's bytecode; everything
 * else, the nests that stay on the host included, remains the method's own code.
 *
 * @param nests every loop nest considered for a kernel, in source order, with its decision
 * @param sites the nests with a device path, in source order ({@link Nest#site()} indexes this list)
 * @param entry what host code may do to arrays from the method's start to its first site; its locals are the
 *     method's reference parameters, passed as the values {@link #entryHandles} lists
 * @param entryHandles the local slots whose values {@code entry} names, in value order
 * @param compileClass the method's class with a synthetic method per site: the compiler's input for each nest
 * @param async whether the method has an async clause (its nests then launch as one call, not as sites)
 * @param data whether the method has {@code @Data} clauses: a data region around each call
 * @param clauses the {@code @Kernels} clauses that act on each call ({@code if}, {@code default(present)})
 * @param accesses the host code's element accesses the runtime follows one by one ({@link HostAccesses})
 */
public record MethodPlan(String owner, String name, String descriptor, String source, boolean isStatic,
                         List<Nest> nests, List<Site> sites, List<Effect> entry, List<Integer> entryHandles,
                         ClassNode compileClass, boolean async, boolean data,
                         Clauses clauses, List<Access> accesses) {

    /** "Owner.name", for messages. */
    public String displayName() {
        return owner.substring(owner.lastIndexOf('/') + 1) + "." + name;
    }

    /**
     * An element access of host code that calls the runtime first: {@link #READ} an element of a primitive array,
     * {@link #WRITE} one, or {@link #ROW_STORE} a row into a two-dimensional primitive array.
     *
     * @param insn the instruction's index in the original method
     */
    public record Access(int insn, int kind) {
        public static final int READ = 0;
        public static final int WRITE = 1;
        public static final int ROW_STORE = 2;
    }

    /** A local variable that crosses a site: its slot in the method, its descriptor and its name. */
    public record Local(int slot, String descriptor, String name) {
    }

    /**
     * A loop nest and what becomes of it.
     *
     * @param line the source line of its outermost loop
     * @param offloaded whether it has a device path (its launches may still run on the host, said at run time)
     * @param reasons why it stays on the host (empty when offloaded)
     * @param site its index among the plan's sites, or -1
     * @param kernel the kernel's name, or null
     * @param mapping how its loops map onto the grid, or null
     * @param notes the compiler's report on it (parallel loops, reductions, proofs, checks)
     */
    public record Nest(int line, boolean offloaded, List<String> reasons, int site, String kernel, String mapping,
                       List<String> notes) {
    }

    /**
     * A launch site.
     *
     * @param index its index in the plan
     * @param line the source line of its outermost loop
     * @param method the synthetic method holding the nest (in {@link MethodPlan#compileClass()}): its parameters are
     *     the live-in locals, in order
     * @param liveIns the locals the nest reads that hold values on entry: the first values of the site's call
     * @param liveOuts the scalar locals the nest sets that are read after it: what the device path gives back
     * @param handles further local slots whose values the effects name, after the live-ins in the call's values
     * @param after what host code may do to arrays from the nest's exit until the next site or the method's end
     * @param onHost what the nest does to arrays when it runs on the host
     * @param compiled the compiler's result for the nest (for compute capability {@link Planner#PLAN_SM})
     * @param range the nest's instructions in the original method: {first, last, header, exit}, by index
     */
    public record Site(int index, int line, MethodNode method, List<Local> liveIns, List<Local> liveOuts,
                       List<Integer> handles, List<Effect> after, List<Effect> onHost, Compiler.Offload compiled,
                       int[] range) {
        /** How many values the site's call passes: the live-ins, then the handles. */
        public int values() {
            return liveIns.size() + handles.size();
        }
    }
}
