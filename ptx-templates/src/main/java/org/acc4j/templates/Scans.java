package org.acc4j.templates;

import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import org.acc4j.templates.Reductions.Kind;
import org.acc4j.templates.Reductions.Op;

/**
 * The PTX routines of a device prefix scan in one pass over the data: a kernel of blocks of {@value #THREADS}
 * threads, each block scanning one tile of {@link #tileElements} consecutive elements and finding the prefix of the
 * tiles before it by a decoupled look-back (Duane Merrill and Michael Garland, <i>Single-pass Parallel Prefix Scan
 * with Decoupled Look-back</i>). A routine is a {@code .func} named by {@link Routine#symbol()}:
 * <pre>
 * .func acc_scan_add_f64_incl(.param .u64 in, .param .u64 out, .param .s64 n, .param .f64 s0,
 *                             .param .u64 ticket, .param .u64 flags, .param .u64 aggregates, .param .u64 inclusive)
 * </pre>
 * It writes {@code out[i] = s0 op in[0] op ... op in[i]} (inclusive) or {@code s0 op in[0] op ... op in[i - 1]}
 * (exclusive, {@code out[0] = s0}) for {@code 0 <= i < n}; {@code in} may equal {@code out} (a tile reads all its
 * elements before it writes any, and writes only its own). The caller guarantees:
 * <ul>
 * <li>a one-dimensional launch of {@code ceil(n / tileElements)} blocks of {@value #THREADS} threads, every thread
 *     calling once, in block-uniform control flow ({@code bar.sync 0});</li>
 * <li>{@code in} and {@code out} are global addresses of elements of the routine's type; {@code ticket} is a
 *     global {@code u32} that is 0 when the kernel starts (the block that draws the last ticket sets it to 0 again);
 *     {@code flags} is a global {@code u32} per tile, all 0 when the kernel starts (the caller clears them before
 *     each launch); {@code aggregates} and {@code inclusive} hold one element per tile;</li>
 * <li>no two launches running at once share the ticket or the tile state.</li>
 * </ul>
 *
 * <p><b>The pass.</b> Thread 0 of each block draws a ticket (an atomic add), so tiles start in ticket order and a
 * tile only ever waits for tiles whose blocks are running: the look-back cannot deadlock. The block moves its tile
 * into shared memory with coalesced loads ({@link #items} loads a thread at stride {@value #THREADS}); each thread
 * then takes {@link #items} consecutive elements and scans them in order, the threads' totals are scanned across
 * each warp by shuffles, and the warp totals through shared memory: one barrier for the whole tile. Lane 0 of warp 0
 * then publishes the tile's aggregate (flag 1), and warp 0 looks back over the tiles before it 32 at a time, one
 * tile a lane: once every tile of the window has published, it folds the aggregates of the tiles after the nearest
 * one that has published its inclusive prefix (flag 2) and that prefix, or all 32 aggregates and looks further back;
 * then lane 0 publishes the tile's own inclusive prefix. Values are written before their flag with release
 * semantics and read after it with acquire semantics at GPU scope. Each thread combines its base (the tile's prefix,
 * then the totals of the warps before, then of the lanes before) with its own scanned elements, and the tile leaves
 * through shared memory with coalesced stores. Each element is read once and written once in global memory; the
 * staged rows are padded so that neither the coalesced moves nor a thread's run of elements meet bank conflicts.
 *
 * <p><b>Results.</b> Integer operations wrap and AND, OR, XOR, MIN and MAX are exact, so for integers the result
 * is Java's sequential loop's, bit for bit. MIN and MAX over floats are {@link Math#min}/{@link Math#max} exactly,
 * and the same element wins whatever the grouping, so they are exact too. Float ADD and MUL ({@code add.rn},
 * {@code mul.rn}, never fused, NaN canonical) are grouped differently from Java's left-to-right loop and, through
 * the look-back, differently from one run to the next: the result is a reassociation of Java's sum, not its bits.
 * {@link org.acc4j.templates.scan.ScanOrder} computes the grouping of the run in which every tile finds its
 * predecessor's inclusive prefix.
 */
public final class Scans {
    /** Threads per block. */
    public static final int THREADS = 256;
    private static final int WARPS = THREADS / 32;

    private Scans() {
    }

    /**
     * Elements each thread holds: 32 of 4 bytes, 16 of 8 bytes (128 bytes a thread). Large tiles make the look-back
     * rare: on an H100 a 2^27-element scan of {@code long}s ran at 0.57 of a copy kernel with 64 bytes a thread and
     * at 0.72 with 128.
     */
    public static int items(Kind kind) {
        return 128 / kind.bytes();
    }

    /** Elements of one tile, the work of one block. */
    public static int tileElements(Kind kind) {
        return THREADS * items(kind);
    }

    /** One routine: an operation on one kind of value, inclusive or exclusive. */
    public record Routine(Op op, Kind kind, boolean inclusive) {
        public Routine {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(kind, "kind");
            new Reductions.Routine(op, kind);
        }

        /** The PTX function name, e.g. {@code acc_scan_add_f64_incl}. */
        public String symbol() {
            return "acc_scan_" + op.name().toLowerCase(Locale.ROOT) + "_" + kind.name().toLowerCase(Locale.ROOT)
                    + (inclusive ? "_incl" : "_excl");
        }
    }

    /**
     * The PTX text defining the scans' shared memory and every routine in {@code used}, each once and in a fixed
     * order, for inclusion after a module's header and before its kernels; every name it defines starts with
     * {@code acc_scan_}. Empty for no routines.
     */
    public static String moduleText(Collection<Routine> used) {
        TreeSet<Routine> routines = new TreeSet<>(Comparator.comparing(Routine::op).thenComparing(Routine::kind)
                .thenComparing(Routine::inclusive));
        routines.addAll(used);
        if (routines.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("// the tile number, the tile's prefix, the warp totals, and the staged tile\n"
                + ".shared .align 8 .b8 acc_scan_smem[" + sharedBytes() + "];\n");
        for (Routine r : routines) {
            out.append('\n').append(text(r));
        }
        return out.toString();
    }

    /** Where the staged tile starts in {@code acc_scan_smem}: after the tile number, the prefix and the warp totals. */
    private static final int TILE_AT = 16 + WARPS * 8;

    /**
     * Bytes of {@code acc_scan_smem}: the tile number (at 0), the tile's prefix (at 8), the warp totals (at 16), then
     * the staged tile: rows of {@value #THREADS} elements, each followed by {@code THREADS / items} pads, so that
     * the coalesced moves and each thread's run of consecutive elements fall on distinct banks.
     */
    static int sharedBytes() {
        int most = 0;
        for (Kind k : Kind.values()) {
            most = Math.max(most, THREADS * (items(k) + 1) * k.bytes());
        }
        return TILE_AT + most;
    }

    /** One routine's {@code .func}. */
    static String text(Routine r) {
        Kind k = r.kind();
        String t = k.ptxType().substring(1);
        String b = k.bitType().substring(1);
        int items = items(k);
        int size = k.bytes();
        int rowBytes = (THREADS + THREADS / items) * size;
        StringBuilder loads = new StringBuilder();
        StringBuilder staged = new StringBuilder();
        StringBuilder local = new StringBuilder();
        StringBuilder results = new StringBuilder();
        StringBuilder stores = new StringBuilder();
        for (int i = 0; i < items; i++) {
            loads.append("    add.s64 %rd11, %rd9, ").append(i * THREADS).append(";\n")
                    .append("    setp.lt.s64 %p3, %rd11, %rd3;\n")
                    .append("    mad.lo.s64 %rd12, %rd11, ").append(size).append(", %rd1;\n")
                    .append("    mov.").append(b).append(" %v").append(i).append(", ${IDENTITY};\n")
                    .append("    @%p3 ld.global.").append(t).append(" %v").append(i).append(", [%rd12];\n");
            staged.append("    st.shared.").append(t).append(" [%rd20+").append(TILE_AT + i * rowBytes).append("], %v")
                    .append(i).append(";\n");
            local.append("    ld.shared.").append(t).append(" %v").append(i).append(", [%rd21+")
                    .append(TILE_AT + i * size).append("];\n");
            if (i > 0) {
                local.append(combine(r, "%v" + i, "%v" + (i - 1), "%v" + i));
            }
            String own = r.inclusive() ? "%v" + i : i == 0 ? null : "%v" + (i - 1);
            if (own == null) {
                results.append("    mov.").append(b).append(" %t, %x;\n");
            } else {
                results.append(combine(r, "%t", "%x", own));
            }
            results.append("    st.shared.").append(t).append(" [%rd21+").append(TILE_AT + i * size).append("], %t;\n");
            stores.append("    ld.shared.").append(t).append(" %t, [%rd20+").append(TILE_AT + i * rowBytes).append("];\n")
                    .append("    add.s64 %rd11, %rd9, ").append(i * THREADS).append(";\n")
                    .append("    setp.lt.s64 %p3, %rd11, %rd3;\n")
                    .append("    mad.lo.s64 %rd12, %rd11, ").append(size).append(", %rd2;\n")
                    .append("    @%p3 st.global.").append(t).append(" [%rd12], %t;\n");
        }
        StringBuilder warp = new StringBuilder();
        for (int d = 1; d < 32; d *= 2) {
            warp.append(shuffleUp(k, "%y", "%x", d));
            warp.append(combine(r, "%t", "%y", "%x"));
            warp.append("    setp.ge.u32 %p4, %r2, ").append(d).append(";\n");
            warp.append("    @%p4 mov.").append(b).append(" %x, %t;\n");
        }
        warp.append(shuffleUp(k, "%e", "%x", 1));
        StringBuilder warps = new StringBuilder();
        warps.append("    ld.shared.").append(t).append(" %y, [%rd8+16];\n")
                .append("    mov.").append(b).append(" %run, %y;\n")
                .append("    mov.").append(b).append(" %o, %y;\n");
        for (int w = 1; w < WARPS; w++) {
            warps.append("    ld.shared.").append(t).append(" %y, [%rd8+").append(16 + w * size).append("];\n");
            warps.append(combine(r, "%t", "%o", "%y"));
            warps.append("    setp.lt.u32 %p4, ").append(w).append(", %r3;\n");
            warps.append("    @%p4 mov.").append(b).append(" %o, %t;\n");
            warps.append(combine(r, "%run", "%run", "%y"));
        }
        String base = "    mov." + b + " %x, %pre;\n" + combine(r, "%t", "%pre", "%o")
                + "    @%p6 mov." + b + " %x, %t;\n" + combine(r, "%t", "%x", "%e")
                + "    setp.ne.u32 %p4, %r2, 0;\n    @%p4 mov." + b + " %x, %t;\n";
        String id = identity(r.op(), k);
        return Texts.SCAN.fill(Map.ofEntries(
                Map.entry("IDENTITY", id),
                Map.entry("NAME", r.symbol()),
                Map.entry("KIND", r.op() + " over ." + t + (r.inclusive() ? ", inclusive" : ", exclusive")),
                Map.entry("T", t),
                Map.entry("B", b),
                Map.entry("ITEMS", Integer.toString(items)),
                Map.entry("ITEMS_LOG2", Integer.toString(Integer.numberOfTrailingZeros(items))),
                Map.entry("LAST", Integer.toString(items - 1)),
                Map.entry("RUN_BYTES", Integer.toString((items + 1) * size)),
                Map.entry("TILE", Integer.toString(tileElements(k))),
                Map.entry("SIZE", Integer.toString(size)),
                Map.entry("LOADS", trimmed(loads.toString().replace("${IDENTITY}", id) + staged)),
                Map.entry("LOCAL", trimmed(local.toString())),
                Map.entry("WARP", trimmed(warp.toString())),
                Map.entry("WARPS", trimmed(warps.toString())),
                Map.entry("BASE", trimmed(base)),
                Map.entry("RESULTS", trimmed(results.toString())),
                Map.entry("STORES", trimmed(stores.toString())),
                Map.entry("FOLD", trimmed(fold(r))),
                Map.entry("AGG_PRE", trimmed(combine(r, "%pre", "%y", "%pre"))),
                Map.entry("INCL_FIRST", trimmed(combine(r, "%t", "%s0", "%run"))),
                Map.entry("INCL_NEXT", trimmed(combine(r, "%t", "%pre", "%run")))));
    }

    /** Lane 0's {@code %y} becomes the op of every lane's {@code %y}, the highest lane first. */
    private static String fold(Routine r) {
        Kind k = r.kind();
        String b = k.bitType().substring(1);
        StringBuilder s = new StringBuilder();
        for (int d = 1; d < 32; d *= 2) {
            s.append(shuffle("down", k, "%w", "%y", d));
            s.append(combine(r, "%t", "%w", "%y"));
            s.append("    add.u32 %r10, %r2, ").append(d).append(";\n");
            s.append("    setp.lt.u32 %p4, %r10, 32;\n");
            s.append("    @%p4 mov.").append(b).append(" %y, %t;\n");
        }
        return s.toString();
    }

    /** {@code d = shfl.up(v, delta)} over the whole warp, in two halves for 8-byte values. */
    private static String shuffleUp(Kind k, String d, String v, int delta) {
        return shuffle("up", k, d, v, delta);
    }

    /** {@code d = shfl.<mode>(v, delta)} over the whole warp ({@code up} or {@code down}), in halves for 8 bytes. */
    private static String shuffle(String mode, Kind k, String d, String v, int delta) {
        String c = mode.equals("up") ? "0" : "31";
        if (k.bytes() == 4) {
            return "    mov.b32 %h1, " + v + ";\n"
                    + "    shfl.sync." + mode + ".b32 %h2, %h1, " + delta + ", " + c + ", -1;\n"
                    + "    mov.b32 " + d + ", %h2;\n";
        }
        return "    mov.b64 {%h1, %h3}, " + v + ";\n"
                + "    shfl.sync." + mode + ".b32 %h2, %h1, " + delta + ", " + c + ", -1;\n"
                + "    shfl.sync." + mode + ".b32 %h4, %h3, " + delta + ", " + c + ", -1;\n"
                + "    mov.b64 " + d + ", {%h2, %h4};\n";
    }

    /** {@code dst = earlier op later}, with Java's semantics ({@link Reductions}' combining code). */
    private static String combine(Routine r, String dst, String earlier, String later) {
        String b = r.kind().bitType().substring(1);
        return "    mov." + b + " %a, " + earlier + ";\n"
                + "    mov." + b + " %b, " + later + ";\n"
                + Reductions.combine(r.op(), r.kind()).replaceAll("(?m)^\\s*", "    ") + "\n"
                + "    mov." + b + " " + dst + ", %a;\n";
    }

    /** The identity as a PTX immediate of the kind's bit type. */
    static String identity(Op op, Kind kind) {
        long bits = Reductions.identityBits(op, kind);
        return kind.bytes() == 4 ? String.format("0x%08X", bits) : String.format("0x%016X", bits);
    }

    private static String trimmed(String text) {
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    /** The template resource, read once when first needed. */
    private static final class Texts {
        static final Template SCAN = Template.load("scan/scan");
    }
}
