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
 * tile only ever waits for tiles whose blocks are running: the look-back cannot deadlock. Each thread loads its
 * {@link #items} elements at stride {@value #THREADS} (coalesced); the tile is scanned row by row, a row being the
 * {@value #THREADS} elements loaded by one load of every thread: a warp scan by shuffles, the warp totals through
 * shared memory, and the running total of the rows before. Lane 0 of warp 0 then publishes the tile's aggregate
 * (flag 1), and warp 0 looks back over the tiles before it 32 at a time, one tile a lane: once every tile of the
 * window has published, it folds the aggregates of the tiles after the nearest one that has published its inclusive
 * prefix (flag 2) and that prefix, or all 32 aggregates and looks further back; then lane 0 publishes the tile's own
 * inclusive prefix. Values are written before their flag with release
 * semantics and read after it with acquire semantics at GPU scope. Each element is read once and written once.
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

    /** Elements each thread holds: 16 of 4 bytes, 8 of 8 bytes (64 bytes a thread). */
    public static int items(Kind kind) {
        return 64 / kind.bytes();
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
        StringBuilder out = new StringBuilder("// the tile number, the tile's prefix, and the warp totals of each row\n"
                + ".shared .align 8 .b8 acc_scan_smem[" + sharedBytes() + "];\n");
        for (Routine r : routines) {
            out.append('\n').append(text(r));
        }
        return out.toString();
    }

    /** Bytes of {@code acc_scan_smem}: the tile (at 0), the prefix (at 8), then items x warps totals of 8 bytes. */
    static int sharedBytes() {
        return 16 + 16 * WARPS * 4;
    }

    /** One routine's {@code .func}. */
    static String text(Routine r) {
        Kind k = r.kind();
        String t = k.ptxType().substring(1);
        String b = k.bitType().substring(1);
        int items = items(k);
        int size = k.bytes();
        StringBuilder loads = new StringBuilder();
        StringBuilder rows = new StringBuilder();
        StringBuilder stores = new StringBuilder();
        for (int i = 0; i < items; i++) {
            loads.append("    add.s64 %rd11, %rd9, ").append(i * THREADS).append(";\n")
                    .append("    setp.lt.s64 %p3, %rd11, %rd3;\n")
                    .append("    mad.lo.s64 %rd12, %rd11, ").append(size).append(", %rd1;\n")
                    .append("    mov.").append(b).append(" %v").append(i).append(", ${IDENTITY};\n")
                    .append("    @%p3 ld.global.").append(t).append(" %v").append(i).append(", [%rd12];\n");
            rows.append(row(r, i));
            stores.append("    add.s64 %rd11, %rd9, ").append(i * THREADS).append(";\n")
                    .append("    setp.lt.s64 %p3, %rd11, %rd3;\n")
                    .append("    mad.lo.s64 %rd12, %rd11, ").append(size).append(", %rd2;\n")
                    .append(combine(r, "%t", "%pre", "%v" + i))
                    .append("    @%p3 st.global.").append(t).append(" [%rd12], %t;\n");
        }
        String id = identity(r.op(), k);
        return Texts.SCAN.fill(Map.ofEntries(
                Map.entry("IDENTITY", id),
                Map.entry("NAME", r.symbol()),
                Map.entry("KIND", r.op() + " over ." + t + (r.inclusive() ? ", inclusive" : ", exclusive")),
                Map.entry("T", t),
                Map.entry("B", b),
                Map.entry("ITEMS", Integer.toString(items)),
                Map.entry("TILE", Integer.toString(tileElements(k))),
                Map.entry("SIZE", Integer.toString(size)),
                Map.entry("LOADS", trimmed(loads.toString().replace("${IDENTITY}", id))),
                Map.entry("ROWS", trimmed(rows.toString().replace("${IDENTITY}", id))),
                Map.entry("STORES", trimmed(stores.toString())),
                Map.entry("FOLD", trimmed(fold(r))),
                Map.entry("AGG_PRE", trimmed(combine(r, "%pre", "%y", "%pre"))),
                Map.entry("INCL_FIRST", trimmed(combine(r, "%t", "%s0", "%run"))),
                Map.entry("INCL_NEXT", trimmed(combine(r, "%t", "%pre", "%run")))));
    }

    /** Row {@code i}: the warp scan, the warp totals, and the element's value within the tile. */
    private static String row(Routine r, int i) {
        Kind k = r.kind();
        String t = k.ptxType().substring(1);
        String b = k.bitType().substring(1);
        int size = k.bytes();
        StringBuilder s = new StringBuilder("    // row " + i + ": elements " + (i * THREADS) + " to "
                + ((i + 1) * THREADS - 1) + " of the tile\n");
        s.append("    mov.").append(b).append(" %x, %v").append(i).append(";\n");
        for (int d = 1; d < 32; d *= 2) {
            s.append(shuffleUp(k, "%y", "%x", d));
            s.append(combine(r, "%t", "%y", "%x"));
            s.append("    setp.ge.u32 %p4, %r2, ").append(d).append(";\n");
            s.append("    @%p4 mov.").append(b).append(" %x, %t;\n");
        }
        if (!r.inclusive()) {
            // the warp-exclusive value: the inclusive value of the lane before, the identity in lane 0
            s.append(shuffleUp(k, "%w", "%x", 1));
            s.append("    setp.eq.u32 %p4, %r2, 0;\n");
            s.append("    @%p4 mov.").append(b).append(" %w, ${IDENTITY};\n");
        }
        int slot = 16 + i * WARPS * size;
        s.append("    @%p5 st.shared.").append(t).append(" [%rd13+").append(slot).append("], %x;\n");
        s.append("    bar.sync 0;\n");
        s.append("    mov.").append(b).append(" %o, ${IDENTITY};\n");
        s.append("    mov.").append(b).append(" %rt, ${IDENTITY};\n");
        for (int w = 0; w < WARPS; w++) {
            s.append("    ld.shared.").append(t).append(" %y, [%rd8+").append(slot + w * size).append("];\n");
            s.append(combine(r, "%t", "%o", "%y"));
            s.append("    setp.lt.u32 %p4, ").append(w).append(", %r3;\n");
            s.append("    @%p4 mov.").append(b).append(" %o, %t;\n");
            s.append(combine(r, "%rt", "%rt", "%y"));
        }
        s.append(combine(r, "%t", "%run", "%o"));
        s.append(combine(r, "%v" + i, "%t", r.inclusive() ? "%x" : "%w"));
        s.append(combine(r, "%run", "%run", "%rt"));
        return s.toString();
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
