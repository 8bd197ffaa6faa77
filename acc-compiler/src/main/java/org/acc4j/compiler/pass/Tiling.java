package org.acc4j.compiler.pass;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.acc4j.compiler.ir.ArrayRef;
import org.acc4j.compiler.ir.BinOp;
import org.acc4j.compiler.ir.Cond;
import org.acc4j.compiler.ir.Expr;
import org.acc4j.compiler.ir.Exprs;
import org.acc4j.compiler.ir.KernelParam;
import org.acc4j.compiler.ir.Mapping;
import org.acc4j.compiler.ir.MethodBody;
import org.acc4j.compiler.ir.RangeCheck;
import org.acc4j.compiler.ir.Region;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.ir.Type;
import org.acc4j.compiler.ir.UnOp;
import org.acc4j.compiler.ir.Var;

/**
 * Shared-memory tiling of transpose-shaped nests, chosen from the access analysis with no hint from the user.
 *
 * <p>The shape: a perfect nest of two parallel loops, neither annotated, counting up by 1, whose innermost body
 * copies one array element to another ({@code out[f(i, j)] = in[g(i, j)]}, after locals that only name parts of
 * the subscripts), where the read is contiguous along one loop (its last subscript has coefficient 1 in that
 * loop's index) and the write along the other. Plain threads would read or write with a stride; the tiled kernel
 * stages a 32×32 tile in shared memory, padded to 33 columns so that a column is read without bank conflicts,
 * with blocks of 32×8 threads each moving 4 elements: both the read and the write are coalesced.
 *
 * <p>The tiled kernel is the variant without bounds checks: it runs only when the host has proven every access of
 * the nest in bounds for the call ({@link Bounds}), else the kernel that checks every access runs and raises
 * Java's exception at the first bad index. The two arrays are distinct in the IR; the runtime refuses a call that
 * binds one array that the nest writes under two names. Each iteration runs exactly once, in some order, which
 * is Java's result since the nest is parallel.
 */
public final class Tiling {
    /** Tile edge, and the threads of a block along x. */
    public static final int TILE = 32;
    /** Threads of a block along y: each moves {@code TILE / ROWS} elements per phase. */
    public static final int ROWS = 8;
    /** Shared-memory row length: one more than the tile, so that a column falls on distinct banks. */
    public static final int PADDED = TILE + 1;

    private Tiling() {
    }

    /** A tiled kernel's description: what the emitter and the interpreter follow. */
    public sealed interface Kernel permits Transpose, Matmul {
        /** The geometry of its launch. */
        Mapping launch();

        /** The report's line. */
        String note();

        /** The dynamic shared memory per block its launches pass, in bytes (0: its shared memory is static). */
        default int dynamicShared() {
            return 0;
        }
    }

    /** An array access with its subscripts as linear forms in the two loop indices ({@code row} null for 1D). */
    public record Access(ArrayRef array, Linear.Form row, Linear.Form index) {
    }

    /**
     * A transpose-shaped nest: {@code dst} at the iteration gets {@code src}'s element. {@code readLoop} is the
     * loop along which {@code src} is contiguous, {@code writeLoop} the one along which {@code dst} is.
     *
     * @param launch the tiled kernel's geometry: x over tiles of {@code readLoop}, y over tiles of
     *     {@code writeLoop}, blocks of 32×8 threads
     */
    public record Transpose(Stmt.For outer, Stmt.For inner, Stmt.For readLoop, Stmt.For writeLoop, Access src,
                            Access dst, Mapping launch) implements Kernel {
        @Override
        public String note() {
            return "tiled for shared memory: " + src.array().name() + " is read along " + readLoop.index().name()
                    + " and " + dst.array().name() + " written along " + writeLoop.index().name() + " (" + TILE + "x"
                    + TILE + " tiles padded to " + PADDED + " columns, blocks of " + TILE + "x" + ROWS
                    + " threads; launched when the bounds proofs hold, else the checked kernel runs)";
        }
    }

    /**
     * The transpose shape of {@code region}, or null when it has none. {@code hoisted} are the region's hoisted
     * bounds checks: both accesses must be among them. {@code params} are the plain kernel's parameters: every
     * scalar the subscripts and loop bounds use must be one of them.
     */
    public static Transpose transpose(MethodBody body, Region region, List<RangeCheck> hoisted,
                                      List<KernelParam> params) {
        Stmt.For outer = region.loop();
        if (!region.reductions().isEmpty() || !region.hostVars().isEmpty()
                || !quietPrologue(region.devicePrologue())) {
            return null;
        }
        Mapping m = region.mapping();
        List<Stmt> outerBody = outer.body();
        Stmt last = outerBody.isEmpty() ? null : outerBody.get(outerBody.size() - 1);
        if (!(last instanceof Stmt.For inner) || !simpleLoop(outer) || !simpleLoop(inner)) {
            return null;
        }
        if (m == null || m.levelOf(outer) == null || m.levelOf(inner) == null) {
            return null;
        }
        List<Stmt> innerBody = inner.body();
        if (innerBody.isEmpty() || !(innerBody.get(innerBody.size() - 1) instanceof Stmt.Store store)
                || !(store.value() instanceof Expr.Load load) || load.array().equals(store.array())
                || load.array().elem() != store.array().elem() || load.array().dims() != store.array().dims()) {
            return null;
        }
        List<Stmt> defsOuter = outerBody.subList(0, outerBody.size() - 1);
        List<Stmt> defsInner = innerBody.subList(0, innerBody.size() - 1);
        if (!pureAssigns(defsOuter) || !pureAssigns(defsInner)) {
            return null;
        }
        Set<Integer> proven = new HashSet<>();
        hoisted.forEach(c -> proven.add(c.access()));
        if (!proven.contains(store.access()) || !proven.contains(load.access())) {
            return null;
        }
        List<Stmt> nest = List.of(outer);
        Set<Var> indices = new HashSet<>();
        Set<Var> variant = new HashSet<>();
        Dataflow.loopIndices(nest, indices);
        Dataflow.assigned(nest, variant);
        Set<Var> once = Dataflow.assignedOnce(nest);
        Map<Var, Expr> defs = new HashMap<>();
        for (Stmt s : defsOuter) {
            Stmt.Assign a = (Stmt.Assign) s;
            if (once.contains(a.var())) {
                defs.put(a.var(), a.value());
            }
        }
        for (Stmt s : defsInner) {
            Stmt.Assign a = (Stmt.Assign) s;
            if (once.contains(a.var())) {
                defs.put(a.var(), a.value());
            }
        }
        Linear lin = new Linear(indices, variant, defs);
        Access src = access(lin, load.array(), load.row(), load.index());
        Access dst = access(lin, store.array(), store.row(), store.index());
        if (src == null || dst == null) {
            return null;
        }
        Scalars ok = Scalars.of(body, params, region.devicePrologue(), variant);
        if (!ok.all(src) || !ok.all(dst) || !ok.test(outer.lower()) || !ok.test(outer.bound())
                || !ok.test(inner.lower()) || !ok.test(inner.bound())) {
            return null;
        }
        Var i = outer.index();
        Var j = inner.index();
        Var readVar = contiguous(src.index(), i, j);
        Var writeVar = contiguous(dst.index(), i, j);
        if (readVar == null || writeVar == null || readVar.equals(writeVar)) {
            return null;
        }
        Stmt.For readLoop = readVar.equals(i) ? outer : inner;
        Stmt.For writeLoop = readLoop == outer ? inner : outer;
        // levels: 0 the outer loop (a launch with no iteration of it does not happen), 1 the inner one
        Stmt.For o = ok.loop(outer);
        Stmt.For n = ok.loop(inner);
        Mapping.Level lo = new Mapping.Level(List.of(o), readLoop == outer ? 0 : 1, readLoop == outer ? 0 : 1,
                "tile rows");
        Mapping.Level li = new Mapping.Level(List.of(n), readLoop == inner ? 0 : 1, readLoop == inner ? 0 : 1,
                "tile columns");
        int readLevel = readLoop == outer ? 0 : 1;
        Mapping launch = new Mapping(List.of(lo, li), new int[] {TILE, ROWS, 1},
                List.of(new Mapping.FromTrip(readLevel, TILE, Integer.MAX_VALUE, 1),
                        new Mapping.FromTrip(1 - readLevel, TILE, 65535, 1), new Mapping.Unused()),
                "shared-memory transpose tiles");
        return new Transpose(o, n, readLoop == outer ? o : n, readLoop == outer ? n : o, ok.access(src),
                ok.access(dst), launch);
    }

    /** The candidate of {@code candidates} whose name is {@code n}, or null. */
    private static <T> T byName(List<T> candidates, java.util.function.Function<T, String> name, String n) {
        for (T t : candidates) {
            if (name.apply(t).equals(n)) {
                return t;
            }
        }
        return null;
    }

    /** The name the system property {@code property} gives, else the environment variable {@code env}; or null. */
    private static String requested(String property, String env) {
        String r = System.getProperty(property);
        if (r == null || r.isBlank()) {
            r = System.getenv(env);
        }
        return r == null || r.isBlank() ? null : r.trim();
    }

    /** The report's line for a requested name that names no candidate ({@code what}), or null. */
    private static <T> String unknownName(String property, String env, String what, List<T> candidates,
                                          java.util.function.Function<T, String> name) {
        String r = requested(property, env);
        return r == null || byName(candidates, name, r) != null ? null : property + " (or " + env + ") is " + r
                + ", which names no " + what + " (" + candidates.stream().map(name).toList() + "); the default "
                + name.apply(candidates.get(0)) + " applies";
    }

    /**
     * The shape of a register-tiled matmul kernel: {@code threadsX × threadsY} threads per block (x along j), each
     * computing {@code microI × microJ} elements of C in registers, so that a block computes a
     * {@code blockI × blockJ} tile of C; k is staged {@code depth} at a time in shared memory, in two buffers.
     * Every size is a power of two; the micro-tile is even along both axes (a thread owns pairs of adjacent
     * elements and reads them from shared memory with one 16-byte load). The FP64 tensor-core kernel has its own
     * shape, {@link TensorTile}.
     *
     * @param name the name {@link #configured} selects it by
     * @param minBlocks the blocks per multiprocessor the kernel asks ptxas to fit ({@code .minnctapersm})
     */
    public record MatmulTile(String name, int threadsX, int threadsY, int microI, int microJ, int depth,
                             int minBlocks) {
        /** The system property that selects the tile of every matmul kernel by name. */
        public static final String PROPERTY = "acc4j.matmulTile";
        /** The environment variable read when the property is not set. */
        public static final String ENV = "ACC4J_MATMUL_TILE";

        /** The candidates, the default first. */
        public static final List<MatmulTile> CANDIDATES = List.of(
                new MatmulTile("128x128", 16, 16, 8, 8, 8, 1),
                new MatmulTile("128x64", 16, 16, 8, 4, 8, 2),
                new MatmulTile("64x64", 16, 16, 4, 4, 16, 2));

        public MatmulTile {
            for (int v : new int[] {threadsX, threadsY, microI, microJ, depth}) {
                if (v <= 0 || Integer.bitCount(v) != 1) {
                    throw new IllegalArgumentException("matmul tile " + name + ": " + v + " is not a power of two");
                }
            }
            int t = threadsX * threadsY;
            if (microI < 2 || microJ < 2 || t % depth != 0 || t % (threadsX * microJ) != 0
                    || threadsY * microI * depth % t != 0 || depth * threadsX * microJ % t != 0) {
                throw new IllegalArgumentException("matmul tile " + name + ": the threads do not stage the tiles evenly");
            }
        }

        /** Rows of C per block. */
        public int blockI() {
            return threadsY * microI;
        }

        /** Columns of C per block. */
        public int blockJ() {
            return threadsX * microJ;
        }

        /** Threads per block. */
        public int threads() {
            return threadsX * threadsY;
        }

        /** The row pitch of A's shared tile (A is stored transposed, k by i): two more than a row, even. */
        public int pitchA() {
            return blockI() + 2;
        }

        /** The candidate named {@code name}, or null. */
        public static MatmulTile named(String name) {
            return byName(CANDIDATES, MatmulTile::name, name);
        }

        /**
         * The tile the {@value #PROPERTY} system property names, else the {@value #ENV} environment variable, else
         * the default; a name of no candidate gives the default too ({@link #configurationNote} says so).
         */
        public static MatmulTile configured() {
            MatmulTile t = named(requested());
            return t != null ? t : CANDIDATES.get(0);
        }

        /** What the report says of a requested name that matches no candidate, or null. */
        public static String configurationNote() {
            return unknownName(PROPERTY, ENV, "matmul tile", CANDIDATES, MatmulTile::name);
        }

        private static String requested() {
            return Tiling.requested(PROPERTY, ENV);
        }
    }

    /**
     * The shape of the FP64 tensor-core matmul kernel: blocks of {@code warpsI × warpsJ} warps, each warp computing a
     * {@code 16 tilesI × 8 tilesJ} part of the block's C tile with {@code mma.sync m16n8k<mmaK>} (4, 8 or 16 deep
     * along k), so that a block computes a {@code blockI × blockJ} tile; k is staged {@code depth} at a time in
     * {@code stages} shared buffers filled by {@code cp.async}, {@code stages - 1} k tiles in flight while one is
     * multiplied. The shared tiles are unpadded, their rows XOR-swizzled; a shape that needs more than the 48 KiB of
     * static shared memory takes it as dynamic shared memory (up to 227 KiB on sm_90).
     *
     * @param name the name {@link #configured} selects it by
     * @param minBlocks the blocks per multiprocessor the kernel asks ptxas to fit ({@code .minnctapersm})
     * @param group 0: block {@code (bx, by)} takes the C tile {@code (by, bx)}; else the blocks' linear numbers take
     *     the C tiles in bands of {@code group} rows of tiles, column by column in each band
     * @param affineCopies whether a thread computes its copies' global addresses once per C tile and steps them
     *     along k (where the operand's addresses are affine, the tile lies inside the ranges and the pairs are
     *     aligned; else the copies take the general path)
     * @param loadsFirst whether a k tile's first fragments are loaded before the copies of a later k tile are issued
     * @param pipelined whether the fragments are loaded one K-deep step ahead of the mma that use them, across k
     *     tiles too: the barrier of a k tile comes before its last step's mma, and the next tile's first fragments
     *     load while they run (at least two steps per k tile)
     */
    public record TensorTile(String name, int warpsI, int warpsJ, int tilesI, int tilesJ, int depth, int stages,
                             int mmaK, int minBlocks, int group, boolean affineCopies, boolean loadsFirst,
                             boolean pipelined) {
        /** The system property that selects the tensor-core kernel's shape by name. */
        public static final String PROPERTY = "acc4j.tensorTile";
        /** The environment variable read when the property is not set. */
        public static final String ENV = "ACC4J_TENSOR_TILE";
        /** Static shared memory a kernel may declare; a shape that needs more takes it as dynamic shared memory. */
        public static final int STATIC_SHARED_BYTES = 48 * 1024;
        /** Shared memory a block may have on sm_90 (dynamic, opted into). */
        public static final int MAX_SHARED_BYTES = 227 * 1024;

        /** The candidates, the default first. */
        public static final List<TensorTile> CANDIDATES = List.of(
                new TensorTile("128x64w4k8d32apg8", 2, 2, 4, 4, 32, 2, 8, 2, 8, true, false, true),
                new TensorTile("128x64w4k4s3apg8", 2, 2, 4, 4, 16, 3, 4, 2, 8, true, false, true),
                new TensorTile("128x64w4k16d32ag8", 2, 2, 4, 4, 32, 2, 16, 2, 8, true, false, false),
                new TensorTile("128x64w4k16s3ag8", 2, 2, 4, 4, 16, 3, 16, 2, 8, true, false, false),
                new TensorTile("128x64w4k16s3a", 2, 2, 4, 4, 16, 3, 16, 2, 0, true, false, false),
                new TensorTile("128x64w4k16s4a", 2, 2, 4, 4, 16, 4, 16, 2, 0, true, false, false),
                new TensorTile("128x64w4k16a", 2, 2, 4, 4, 16, 2, 16, 2, 0, true, false, false),
                new TensorTile("128x64w4k8d32ap", 2, 2, 4, 4, 32, 2, 8, 2, 0, true, false, true),
                new TensorTile("128x64w4k4s3ap", 2, 2, 4, 4, 16, 3, 4, 2, 0, true, false, true),
                new TensorTile("128x64w4k4d32ap", 2, 2, 4, 4, 32, 2, 4, 2, 0, true, false, true),
                new TensorTile("128x64w4k4s3al", 2, 2, 4, 4, 16, 3, 4, 2, 0, true, true, false),
                new TensorTile("128x64w4k16", 2, 2, 4, 4, 16, 2, 16, 2, 0),
                new TensorTile("128x64w4k8d16", 2, 2, 4, 4, 16, 4, 8, 2, 0),
                new TensorTile("64x64w4k16", 2, 2, 2, 4, 16, 3, 16, 3, 0),
                new TensorTile("128x128w8k4", 2, 4, 4, 4, 8, 3, 4, 1, 0),
                new TensorTile("128x128w8k16d16a", 2, 4, 4, 4, 16, 4, 16, 1, 0, true, false, false),
                new TensorTile("128x128w8k4d16ap", 2, 4, 4, 4, 16, 4, 4, 1, 0, true, false, true),
                new TensorTile("128x128w8k8d16g8", 2, 4, 4, 4, 16, 4, 8, 1, 8),
                new TensorTile("256x64w8k16s4a", 4, 2, 4, 4, 16, 4, 16, 1, 0, true, false, false));

        /** A shape whose copies take the general path, issued before the fragment loads. */
        public TensorTile(String name, int warpsI, int warpsJ, int tilesI, int tilesJ, int depth, int stages,
                          int mmaK, int minBlocks, int group) {
            this(name, warpsI, warpsJ, tilesI, tilesJ, depth, stages, mmaK, minBlocks, group, false, false, false);
        }

        public TensorTile {
            for (int v : new int[] {warpsI, warpsJ, tilesI, depth}) {
                if (v <= 0 || Integer.bitCount(v) != 1) {
                    throw new IllegalArgumentException("tensor tile " + name + ": " + v + " is not a power of two");
                }
            }
            int threads = 32 * warpsI * warpsJ;
            int bi = 16 * tilesI * warpsI;
            int bj = 8 * tilesJ * warpsJ;
            // nT even: a warp's columns start on a multiple of 16 (the swizzle of B's fragment reads relies on it)
            if (threads > 1024 || tilesJ < 2 || Integer.bitCount(tilesJ) != 1 || depth < 8 || bj < 16
                    || depth % mmaK != 0 || (mmaK != 4 && mmaK != 8 && mmaK != 16) || stages < 2 || minBlocks < 1 || group < 0
                    || threads % (depth / 2) != 0 || threads % (bj / 2) != 0 || bi * depth / 2 % threads != 0
                    || depth * bj / 2 % threads != 0 || pipelined && (depth < 2 * mmaK || loadsFirst)) {
                throw new IllegalArgumentException("tensor tile " + name + ": the warps do not cover the tiles");
            }
            if (stages * (bi + bj) * depth * 8 > MAX_SHARED_BYTES) {
                throw new IllegalArgumentException("tensor tile " + name + ": the stages exceed "
                        + MAX_SHARED_BYTES + " bytes of shared memory");
            }
        }

        /** Shared memory per block: the stages of A's and B's tiles, in bytes. */
        public int sharedBytes() {
            return stages * (blockI() + blockJ()) * depth * 8;
        }

        /** Whether the kernel takes its shared memory as dynamic shared memory (more than the static limit). */
        public boolean dynamic() {
            return sharedBytes() > STATIC_SHARED_BYTES;
        }

        /** Threads per block. */
        public int threads() {
            return 32 * warpsI * warpsJ;
        }

        /** Rows of C per block. */
        public int blockI() {
            return 16 * tilesI * warpsI;
        }

        /** Columns of C per block. */
        public int blockJ() {
            return 8 * tilesJ * warpsJ;
        }

        /** The candidate named {@code name}, or null. */
        public static TensorTile named(String name) {
            return byName(CANDIDATES, TensorTile::name, name);
        }

        /**
         * The shape the {@value #PROPERTY} system property names, else the {@value #ENV} environment variable, else
         * the default; a name of no candidate gives the default too ({@link #configurationNote} says so).
         */
        public static TensorTile configured() {
            TensorTile t = named(requested());
            return t != null ? t : CANDIDATES.get(0);
        }

        /** What the report says of a requested name that matches no candidate, or null. */
        public static String configurationNote() {
            return unknownName(PROPERTY, ENV, "tensor tile", CANDIDATES, TensorTile::name);
        }

        private static String requested() {
            return Tiling.requested(PROPERTY, ENV);
        }
    }

    /**
     * A matmul-shaped nest {@code c[i][j] = init + Σ_k a(i, k) * b(k, j)}: {@code acc} starts at {@code init} (or,
     * when {@code accumulate}, at the element of c itself: {@code c[i][j] += Σ ...}), gets {@code acc + a * b} for
     * each k in Java's order, and is stored into {@code c}.
     *
     * @param init the start when not {@code accumulate}, else null
     * @param tile the register-tiled kernel's shape
     * @param tensor the shape of the FP64 tensor-core kernel ({@code mma.sync m16n8k4, k8 or k16}) when the nest
     *     multiplies with tensor cores, else null: allowed by {@code @Kernels(relaxed = true)} on sm_90 and later;
     *     the products are fused with the sum, so the result differs from Java's in the last bits
     */
    public record Matmul(Stmt.For i, Stmt.For j, Stmt.For k, Access a, Access b, Access c, Expr.Const init,
                         boolean accumulate, MatmulTile tile, TensorTile tensor) implements Kernel {
        /** The same nest with the kernel shape {@code t} (and no tensor cores). */
        public Matmul withTile(MatmulTile t) {
            return new Matmul(i, j, k, a, b, c, init, accumulate, t, null);
        }

        /** The same nest multiplied with tensor cores or not ({@link TensorTile#configured} when on). */
        public Matmul withTensorCores(boolean on) {
            return withTensor(on ? TensorTile.configured() : null);
        }

        /** The same nest multiplied with tensor cores in the shape {@code t}, or without them when null. */
        public Matmul withTensor(TensorTile t) {
            return new Matmul(i, j, k, a, b, c, init, accumulate, tile, t);
        }

        /** Whether the kernel multiplies with FP64 tensor cores ({@link #tensor} is its shape). */
        public boolean tensorCores() {
            return tensor != null;
        }

        @Override
        public int dynamicShared() {
            return tensor != null && tensor.dynamic() ? tensor.sharedBytes() : 0;
        }

        /** x over tiles of j, y over tiles of i, blocks of the tile's threads. */
        @Override
        public Mapping launch() {
            Mapping.Level li = new Mapping.Level(List.of(i), 1, 1, "rows of C tiles");
            Mapping.Level lj = new Mapping.Level(List.of(j), 0, 0, "columns of C tiles");
            int[] block = tensor != null ? new int[] {tensor.threads(), 1, 1}
                    : new int[] {tile.threadsX(), tile.threadsY(), 1};
            int bi = tensor != null ? tensor.blockI() : tile.blockI();
            int bj = tensor != null ? tensor.blockJ() : tile.blockJ();
            return new Mapping(List.of(li, lj), block, List.of(new Mapping.FromTrip(1, bj, Integer.MAX_VALUE, 1),
                    new Mapping.FromTrip(0, bi, 65535, 1), new Mapping.Unused()),
                    tensor != null ? "tensor-core matmul" : "register-tiled matmul");
        }

        @Override
        public String note() {
            String an = a.array().name();
            String bn = b.array().name();
            String cn = c.array().name();
            if (tensor != null) {
                TensorTile t = tensor;
                return "tiled for FP64 tensor cores (@Kernels(relaxed = true)): " + cn + "[" + i.index().name() + ", "
                        + j.index().name() + "] " + (accumulate ? "+=" : "=") + " sum over " + k.index().name()
                        + " of " + an + " * " + bn + " (tensor tile " + t.name() + ": " + t.blockI() + "x"
                        + t.blockJ() + " tiles of " + cn + " per block of " + t.warpsI() * t.warpsJ() + " warps, each "
                        + (16 * t.tilesI()) + "x" + (8 * t.tilesJ()) + " with mma.sync m16n8k" + t.mmaK() + ", "
                        + t.depth() + "-deep k tiles in " + t.stages() + " shared buffers filled by cp.async"
                        + (t.affineCopies() ? " (copies by steps along k)" : "")
                        + (t.loadsFirst() ? ", fragments loaded before the copies" : "")
                        + (t.pipelined() ? ", fragments loaded a step ahead" : "")
                        + (t.group() > 0 ? ", tiles of " + cn + " in bands of " + t.group() + " rows of tiles" : "")
                        + "; each "
                        + "product is fused with the running sum, so the "
                        + "result differs from Java's in the last bits, within (p + 1) * 2^-53 * (|c| + sum |a| |b|)"
                        + " for p terms; launched when the bounds proofs hold, else the checked kernel runs)";
            }
            return "tiled for shared memory and registers: " + cn + "[" + i.index().name() + ", " + j.index().name()
                    + "] " + (accumulate ? "+=" : "=") + " sum over " + k.index().name() + " of " + an + " * " + bn
                    + " (tile " + tile.name() + ": " + tile.blockI() + "x" + tile.blockJ() + " tiles of " + cn
                    + " per block of " + tile.threadsX() + "x" + tile.threadsY() + " threads, " + tile.depth()
                    + "-deep k tiles of " + an + " and " + bn + " double-buffered in shared memory, " + tile.microI()
                    + "x" + tile.microJ() + " elements per thread in registers; each element sums in Java's order "
                    + "with multiply and add rounded separately, so the result is Java's bit for bit; launched when "
                    + "the bounds proofs hold, else the checked kernel runs)";
        }
    }

    /**
     * The matmul shape of {@code region}, or null: loops i and j parallel and not annotated, the body of j a
     * constant {@code double} accumulator, a counted sequential k loop whose only statement is
     * {@code acc += a[..] * b[..]} (a independent of j, b of i), and the store of {@code acc} into c (independent
     * of k); every access hoisted. {@code tile} is the kernel's shape ({@link MatmulTile#configured} in the
     * compiler); {@code tensorCores} asks for the FP64 tensor-core kernel in the shape {@link TensorTile#configured}
     * instead (the method's
     * {@code @Kernels(relaxed = true)} on sm_90 or later).
     */
    public static Matmul matmul(MethodBody body, Region region, List<RangeCheck> hoisted, List<KernelParam> params,
                                MatmulTile tile, boolean tensorCores) {
        Stmt.For outer = region.loop();
        Mapping m = region.mapping();
        if (!region.reductions().isEmpty() || !region.hostVars().isEmpty() || !quietPrologue(region.devicePrologue())
                || m == null) {
            return null;
        }
        List<Stmt> ob = outer.body();
        if (ob.isEmpty() || !(ob.get(ob.size() - 1) instanceof Stmt.For inner) || !simpleLoop(outer)
                || !simpleLoop(inner) || !pureAssigns(ob.subList(0, ob.size() - 1))) {
            return null;
        }
        if (m.levelOf(outer) == null || m.levelOf(inner) == null) {
            return null;
        }
        List<Stmt> jb = inner.body();
        int n = jb.size();
        if (n < 3 || !(jb.get(n - 3) instanceof Stmt.Assign init) || !(jb.get(n - 2) instanceof Stmt.For kl)
                || !(jb.get(n - 1) instanceof Stmt.Store store) || !pureAssigns(jb.subList(0, n - 3))) {
            return null;
        }
        Var acc = init.var();
        Expr.Const c0 = init.value() instanceof Expr.Const k0 ? k0 : null;
        // c[i][j] += ...: the start is the element the nest stores into
        Expr.Load own = init.value() instanceof Expr.Load l && l.array().equals(store.array())
                && java.util.Objects.equals(l.row(), store.row()) && l.index().equals(store.index()) ? l : null;
        if (acc.type() != Type.F64 || (c0 == null && own == null) || !simpleLoop(kl)
                || m.levelOf(kl) != null || kl.body().size() != 1 || !(kl.body().get(0) instanceof Stmt.Assign step)
                || !step.var().equals(acc) || !(store.value() instanceof Expr.Local sl) || !sl.var().equals(acc)
                || store.array().elem() != org.acc4j.compiler.ir.Elem.DOUBLE) {
            return null;
        }
        if (!(step.value() instanceof Expr.Binary add) || add.op() != BinOp.ADD
                || !(add.left() instanceof Expr.Local al) || !al.var().equals(acc)
                || !(add.right() instanceof Expr.Binary mul) || mul.op() != BinOp.MUL
                || !(mul.left() instanceof Expr.Load x) || !(mul.right() instanceof Expr.Load y)
                || x.array().elem() != org.acc4j.compiler.ir.Elem.DOUBLE
                || y.array().elem() != org.acc4j.compiler.ir.Elem.DOUBLE
                || x.array().equals(store.array()) || y.array().equals(store.array())) {
            return null;
        }
        Set<Integer> proven = new HashSet<>();
        hoisted.forEach(ch -> proven.add(ch.access()));
        if (!proven.contains(store.access()) || !proven.contains(x.access()) || !proven.contains(y.access())
                || (own != null && !proven.contains(own.access()))) {
            return null;
        }
        List<Stmt> nest = List.of(outer);
        Set<Var> indices = new HashSet<>();
        Set<Var> variant = new HashSet<>();
        Dataflow.loopIndices(nest, indices);
        Dataflow.assigned(nest, variant);
        Set<Var> once = Dataflow.assignedOnce(nest);
        Map<Var, Expr> defs = new HashMap<>();
        for (Stmt s : ob.subList(0, ob.size() - 1)) {
            Stmt.Assign a = (Stmt.Assign) s;
            if (once.contains(a.var())) {
                defs.put(a.var(), a.value());
            }
        }
        for (Stmt s : jb.subList(0, n - 3)) {
            Stmt.Assign a = (Stmt.Assign) s;
            if (once.contains(a.var())) {
                defs.put(a.var(), a.value());
            }
        }
        Linear lin = new Linear(indices, variant, defs);
        Access ax = access(lin, x.array(), x.row(), x.index());
        Access ay = access(lin, y.array(), y.row(), y.index());
        Access ac = access(lin, store.array(), store.row(), store.index());
        if (ax == null || ay == null || ac == null) {
            return null;
        }
        Var vi = outer.index();
        Var vj = inner.index();
        Var vk = kl.index();
        Access a;
        Access b;
        if (!uses(ax, vj) && !uses(ay, vi)) {
            a = ax;
            b = ay;
        } else if (!uses(ay, vj) && !uses(ax, vi)) {
            a = ay;
            b = ax;
        } else {
            return null;
        }
        if (uses(ac, vk)) {
            return null;
        }
        Scalars ok = Scalars.of(body, params, region.devicePrologue(), variant);
        for (Stmt.For f : List.of(outer, inner, kl)) {
            if (!ok.test(f.lower()) || !ok.test(f.bound())) {
                return null;
            }
        }
        if (!ok.all(a) || !ok.all(b) || !ok.all(ac)) {
            return null;
        }
        return new Matmul(ok.loop(outer), ok.loop(inner), ok.loop(kl), ok.access(a), ok.access(b), ok.access(ac), c0,
                own != null, tile, tensorCores ? TensorTile.configured() : null);
    }

    private static boolean uses(Access a, Var v) {
        return (a.row() != null && a.row().coefficient(v) != null) || a.index().coefficient(v) != null;
    }

    /** The loop whose index has coefficient 1 in {@code f} while the other's is not ±1, or null. */
    private static Var contiguous(Linear.Form f, Var i, Var j) {
        boolean ui = isOne(f.coefficient(i));
        boolean uj = isOne(f.coefficient(j));
        if (ui && !f.unit(j)) {
            return i;
        }
        if (uj && !f.unit(i)) {
            return j;
        }
        return null;
    }

    private static boolean isOne(Expr e) {
        return e instanceof Expr.Const k && k.type() == Type.I32 && (int) k.bits() == 1;
    }

    private static Access access(Linear lin, ArrayRef array, Expr row, Expr index) {
        Linear.Form r = null;
        if (row != null) {
            r = lin.of(row);
            if (r == null || r.rest().type() != Type.I32) {
                return null;
            }
        }
        Linear.Form c = lin.of(index);
        if (c == null || c.rest().type() != Type.I32) {
            return null;
        }
        return new Access(array, r, c);
    }

    /** {@code for (i = lo; i < hi (or <=); i++)} over an {@code int} with no stride. */
    static boolean simpleLoop(Stmt.For f) {
        return f.stride() == null && f.step() == 1 && (f.cond() == Cond.LT || f.cond() == Cond.LE)
                && f.index().type() == Type.I32 && !f.spec().annotated();
    }

    /** Assignments of values that read no memory and cannot throw. */
    static boolean pureAssigns(List<Stmt> stmts) {
        for (Stmt s : stmts) {
            if (!(s instanceof Stmt.Assign a) || !quiet(a.value())) {
                return false;
            }
        }
        return true;
    }

    private static boolean quietPrologue(List<Stmt> stmts) {
        return pureAssigns(stmts);
    }

    private static boolean quiet(Expr e) {
        return !Exprs.any(e, x -> x instanceof Expr.Load || x instanceof Expr.Call
                || (x instanceof Expr.Length l && l.row() != null)
                || (x instanceof Expr.Binary b && (b.op() == BinOp.DIV || b.op() == BinOp.REM)));
    }

    /**
     * The invariant {@code int} expressions a tiled kernel computes itself: constants, the method's scalar
     * parameters the plain kernel receives (never assigned), array lengths, and {@code + - * << neg} of them; and
     * the locals of the region's device prologue that are copies of such expressions. A nest outlined into a
     * method of its own reads its bounds through such copies ({@code int n = n;} in the prologue, the local in
     * another slot than the parameter): each local assigned exactly once, at the prologue's top level, from an
     * invariant expression (after its own copies are replaced) stands for that expression, so the tiled kernel
     * computes it from the parameters and the shape does not depend on where the nest was cut out.
     */
    static final class Scalars {
        private final MethodBody body;
        private final List<KernelParam> params;
        private final Set<Var> assigned;
        /** Prologue locals and the invariant expressions of parameters they hold. */
        private final Map<Var, Expr> copies = new HashMap<>();

        private Scalars(MethodBody body, List<KernelParam> params, Set<Var> assigned) {
            this.body = body;
            this.params = params;
            this.assigned = assigned;
        }

        /** The scalars of a nest whose device prologue is {@code prologue} and which assigns {@code nest}. */
        static Scalars of(MethodBody body, List<KernelParam> params, List<Stmt> prologue, Set<Var> nest) {
            Set<Var> assigned = new HashSet<>(nest);
            Dataflow.assigned(prologue, assigned);
            Scalars s = new Scalars(body, params, assigned);
            Set<Var> once = Dataflow.assignedOnce(prologue);
            for (Stmt st : prologue) {
                if (st instanceof Stmt.Assign a && once.contains(a.var()) && !nest.contains(a.var())) {
                    Expr v = s.resolve(a.value());
                    if (s.test(v)) {
                        s.copies.put(a.var(), v);
                    }
                }
            }
            return s;
        }

        /** {@code e} with each prologue copy replaced by the expression it holds. */
        Expr resolve(Expr e) {
            if (e instanceof Expr.Local l) {
                return copies.getOrDefault(l.var(), e);
            }
            if (e instanceof Expr.Binary b) {
                return new Expr.Binary(b.op(), resolve(b.left()), resolve(b.right()));
            }
            if (e instanceof Expr.Unary u) {
                return new Expr.Unary(u.op(), resolve(u.operand()));
            }
            return e;
        }

        /** {@code f} with its bounds resolved (the tiled kernel's loops: its body is not used). */
        Stmt.For loop(Stmt.For f) {
            return new Stmt.For(f.index(), resolve(f.lower()), f.cond(), resolve(f.bound()), f.step(), f.spec(),
                    f.body(), f.line(), f.stride());
        }

        /** {@code a} with its coefficients and rests resolved. */
        Access access(Access a) {
            return new Access(a.array(), a.row() == null ? null : resolved(a.row()), resolved(a.index()));
        }

        private Linear.Form resolved(Linear.Form f) {
            Map<Var, Expr> c = new java.util.LinkedHashMap<>();
            f.coefficients().forEach((v, x) -> c.put(v, resolve(x)));
            return new Linear.Form(c, resolve(f.rest()));
        }

        boolean all(Access a) {
            return (a.row() == null || form(a.row())) && form(a.index());
        }

        private boolean form(Linear.Form f) {
            for (Expr c : f.coefficients().values()) {
                if (!test(c)) {
                    return false;
                }
            }
            return test(f.rest());
        }

        boolean test(Expr e) {
            if (e.type() != Type.I32) {
                return false;
            }
            if (e instanceof Expr.Const) {
                return true;
            }
            if (e instanceof Expr.Local l) {
                return copies.containsKey(l.var())
                        || (param(body, params, l.var()) >= 0 && !assigned.contains(l.var()));
            }
            if (e instanceof Expr.Length l) {
                return l.row() == null && params.contains(new KernelParam.ArrayLength(l.array()));
            }
            if (e instanceof Expr.Binary b) {
                return (b.op() == BinOp.ADD || b.op() == BinOp.SUB || b.op() == BinOp.MUL
                        || (b.op() == BinOp.SHL && b.right().type() == Type.I32)) && test(b.left()) && test(b.right());
            }
            if (e instanceof Expr.Unary u) {
                return u.op() == UnOp.NEG && test(u.operand());
            }
            return false;
        }
    }

    /** The position in {@code params} of the scalar parameter held in {@code v}'s slot, or -1. */
    public static int param(MethodBody body, List<KernelParam> params, Var v) {
        MethodBody.Param p = body.paramAtSlot(v.slot());
        if (p == null) {
            return -1;
        }
        for (int k = 0; k < params.size(); k++) {
            if (params.get(k) instanceof KernelParam.Scalar s && s.source() instanceof ArrayRef.Parameter q
                    && q.index() == p.index() && s.type() == v.type()) {
                return k;
            }
        }
        return -1;
    }
}
