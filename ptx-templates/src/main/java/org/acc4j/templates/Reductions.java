package org.acc4j.templates;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The PTX routines that combine one private value per GPU thread into one value for the whole grid, on the
 * device, at the end of a kernel. A routine is a {@code .func} named by {@link Routine#symbol()}:
 * <pre>
 * .func acc_reduce_add_f64(.param .f64 v, .param .u64 partials, .param .u64 counter, .param .u64 result)
 * </pre>
 * called once by every thread of every block with that thread's value {@code v}; {@code partials},
 * {@code counter} and {@code result} are generic addresses of global memory. The caller guarantees:
 * <ul>
 * <li>every thread of the block reaches the call, in block-uniform control flow (the routine uses
 *     {@code bar.sync 0} and {@code bar.red}); a thread that has nothing to contribute passes
 *     {@link #identityBits the identity};</li>
 * <li>at most 1024 threads a block, any 3D shape; fewer than 2^32 blocks, any 3D grid;</li>
 * <li>{@code partials} holds one element of the routine's type per block ({@link Kind#bytes()} x blocks),
 *     aligned to it; {@code counter} is a {@code u32} that is 0 when the kernel starts (zero it once when it is
 *     allocated: every launch leaves it at 0 again); {@code result} takes one element;</li>
 * <li>each call site in a kernel has its own partials and counter, and no two launches running at once share
 *     them; calls one after another in the same kernel are fine, whatever their routines.</li>
 * </ul>
 * {@link #moduleText} also declares {@code acc_reduce_smem}, {@value #SHARED_BYTES} bytes of static shared
 * memory that all routines share; it counts against the kernel's shared memory. The routines need PTX ISA 6.0 and
 * sm_70 or later ({@code shfl.sync}, {@code atom.acq_rel}, {@code ld.relaxed}); the header the caller writes
 * ({@code .version 7.8}, {@code .target sm_90}) has them.
 *
 * <p><b>Order, and determinism.</b> Thread ids are linear ({@code tid.x + ntid.x*(tid.y + ntid.y*tid.z)}, and
 * likewise for blocks over {@code ctaid}/{@code nctaid}). In a block of T threads, a tree over the n threads that
 * hold values (n = T here): in each warp of 32 consecutive ids, lane i takes {@code op(a[i], a[i + o])} for
 * o = 16, 8, 4, 2, 1 whenever lane i + o holds a value; lane 0 of each warp puts its value in slot [warp]; warp 0
 * runs the same lane tree over the ceil(n/32) slots; thread 0 stores the result in {@code partials[block]}. The
 * block that arrives last, whichever it is, then has thread t fold {@code partials[t], partials[t + T], ...} left
 * to right, and runs the block tree over its first min(T, blocks) threads; thread 0 writes {@code *result}. Which
 * block comes last only decides who does this work, never its order, so the result depends only on the
 * per-thread values and the launch shape, never on timing: {@link org.acc4j.templates.reduce.ReduceOrder}
 * computes the same bits on the host.
 *
 * <p><b>Java semantics.</b> Integer operations wrap; AND, OR and XOR are bitwise (booleans are 0/1 ints). Float
 * ADD and MUL are {@code add.rn}/{@code mul.rn} (IEEE, subnormals kept, never fused), and a NaN they produce is
 * Java's canonical NaN ({@code 0x7fc00000} or {@code 0x7ff8000000000000}), so the device's bits are the
 * mirror's even then; MAX and MIN are {@link Math#max(double, double)} and {@link Math#min(double, double)}
 * exactly: the first operand if it is NaN, else the second if it is, {@code -0.0 < +0.0}, bits kept.
 */
public final class Reductions {
    /** Bytes of the shared array {@code acc_reduce_smem} that {@link #moduleText} declares: 32 slots of 8 bytes. */
    public static final int SHARED_BYTES = 256;

    private Reductions() {
    }

    /** A combining operation; Java's {@code &&} and {@code ||} over booleans are AND and OR on 0/1 ints. */
    public enum Op {
        ADD, MUL, MAX, MIN, AND, OR, XOR;

        /** Whether this operation applies to values of {@code kind}: the bitwise ones only to integers. */
        public boolean appliesTo(Kind kind) {
            return kind.isInteger() || this == ADD || this == MUL || this == MAX || this == MIN;
        }
    }

    /** The type of the values: int, long, float, double. */
    public enum Kind {
        I32(".s32", 4), I64(".s64", 8), F32(".f32", 4), F64(".f64", 8);

        private final String ptxType;
        private final int bytes;

        Kind(String ptxType, int bytes) {
            this.ptxType = ptxType;
            this.bytes = bytes;
        }

        /** The PTX type with its dot, e.g. {@code .s32}. */
        public String ptxType() {
            return ptxType;
        }

        /** The size of one value: 4 or 8. */
        public int bytes() {
            return bytes;
        }

        public boolean isInteger() {
            return this == I32 || this == I64;
        }

        /** The PTX bit type of the same size, e.g. {@code .b64}. */
        String bitType() {
            return bytes == 8 ? ".b64" : ".b32";
        }
    }

    /** One routine: an operation on one kind of value. */
    public record Routine(Op op, Kind kind) {
        public Routine {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(kind, "kind");
            if (!op.appliesTo(kind)) {
                throw new IllegalArgumentException("no reduction " + op + " over " + kind
                        + ": AND, OR and XOR apply to I32 and I64 only");
            }
        }

        /** The PTX function name, e.g. {@code acc_reduce_add_f64}. */
        public String symbol() {
            return "acc_reduce_" + op.name().toLowerCase(Locale.ROOT) + "_" + kind.name().toLowerCase(Locale.ROOT);
        }

        /** The PTX type of {@code v}, of each partial and of the result, e.g. {@code .f64}, {@code .s32}. */
        public String ptxType() {
            return kind.ptxType();
        }
    }

    /** Every routine there is, by operation then kind. */
    public static List<Routine> all() {
        List<Routine> out = new ArrayList<>();
        for (Op op : Op.values()) {
            for (Kind kind : Kind.values()) {
                if (op.appliesTo(kind)) {
                    out.add(new Routine(op, kind));
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The identity of {@code op} over {@code kind} as raw bits, in the low 32 bits (the high ones 0) for the
     * 32-bit kinds: ADD 0 ({@code -0.0} for floats, so that a sum of -0.0s stays -0.0), MUL 1, MAX the least
     * value ({@code MIN_VALUE}, -Infinity), MIN the greatest, AND all ones, OR and XOR 0.
     */
    public static long identityBits(Op op, Kind kind) {
        new Routine(op, kind);
        long bits = switch (kind) {
            case I32 -> switch (op) {
                case ADD, OR, XOR -> 0;
                case MUL -> 1;
                case MAX -> Integer.MIN_VALUE;
                case MIN -> Integer.MAX_VALUE;
                case AND -> -1;
            };
            case I64 -> switch (op) {
                case ADD, OR, XOR -> 0L;
                case MUL -> 1L;
                case MAX -> Long.MIN_VALUE;
                case MIN -> Long.MAX_VALUE;
                case AND -> -1L;
            };
            case F32 -> Float.floatToRawIntBits(switch (op) {
                case ADD -> -0.0f;
                case MUL -> 1.0f;
                case MAX -> Float.NEGATIVE_INFINITY;
                case MIN -> Float.POSITIVE_INFINITY;
                default -> throw new AssertionError(op);
            });
            case F64 -> Double.doubleToRawLongBits(switch (op) {
                case ADD -> -0.0;
                case MUL -> 1.0;
                case MAX -> Double.NEGATIVE_INFINITY;
                case MIN -> Double.POSITIVE_INFINITY;
                default -> throw new AssertionError(op);
            });
        };
        return kind.bytes() == 4 ? bits & 0xFFFF_FFFFL : bits;
    }

    /**
     * The PTX text defining the shared slots and every routine in {@code used}, each once and in a fixed order
     * (so equal sets give equal text), for inclusion after a module's header and before its kernels; every name
     * it defines starts with {@code acc_reduce_}. Empty for no routines.
     */
    public static String moduleText(Collection<Routine> used) {
        TreeSet<Routine> routines = new TreeSet<>(Comparator.comparing(Routine::op).thenComparing(Routine::kind));
        routines.addAll(used);
        if (routines.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder(Texts.SHARED);
        for (Routine r : routines) {
            out.append('\n').append(text(r));
        }
        return out.toString();
    }

    /** One routine's {@code .func}, the template filled for its operation and kind. */
    static String text(Routine r) {
        Kind k = r.kind();
        String t = k.ptxType().substring(1);
        String b = k.bitType().substring(1);
        return Texts.REDUCE.fill(Map.of(
                "NAME", r.symbol(),
                "OP", r.op().name(),
                "T", t,
                "B", b,
                "SIZE", Integer.toString(k.bytes()),
                "SHUFFLE", trimmed(k.bytes() == 8 ? Texts.SHUFFLE_B64 : Texts.SHUFFLE_B32),
                "COMBINE", combine(r.op(), k)));
    }

    /** {@code %a = op(%a, %b)} in the routine's registers (scratch {@code %q1..%q4}, {@code %k1..%k3}). */
    static String combine(Op op, Kind k) {
        String t = k.ptxType().substring(1);
        String b = k.bitType().substring(1);
        if (k.isInteger()) {
            String insn = switch (op) {
                case ADD -> "add." + t;
                case MUL -> "mul.lo." + t;
                case MAX -> "max." + t;
                case MIN -> "min." + t;
                case AND -> "and." + b;
                case OR -> "or." + b;
                case XOR -> "xor." + b;
            };
            return "    " + insn + " %a, %a, %b;";
        }
        boolean f64 = k == Kind.F64;
        return trimmed(switch (op) {
            case ADD, MUL -> Texts.ARITH_FLOAT.fill(Map.of("OP", op == Op.ADD ? "add" : "mul", "T", t,
                    "NAN", f64 ? "0d7FF8000000000000" : "0f7FC00000"));
            case MAX, MIN -> Texts.MINMAX_FLOAT.fill(Map.of("JAVA", op == Op.MAX ? "max" : "min", "T", t, "B", b,
                    "ZERO_OP", op == Op.MAX ? "and" : "or", "ZERO", f64 ? "0d0000000000000000" : "0f00000000"));
            default -> throw new AssertionError(op);
        });
    }

    private static String trimmed(Template t) {
        return trimmed(t.fill(Map.of()));
    }

    private static String trimmed(String text) {
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    /** The template resources under {@code reduce/}, read once when first needed. */
    private static final class Texts {
        static final String SHARED = Template.load("reduce/shared").fill(Map.of());
        static final Template REDUCE = Template.load("reduce/reduce");
        static final Template SHUFFLE_B32 = Template.load("reduce/shuffle_b32");
        static final Template SHUFFLE_B64 = Template.load("reduce/shuffle_b64");
        static final Template ARITH_FLOAT = Template.load("reduce/arith_float");
        static final Template MINMAX_FLOAT = Template.load("reduce/minmax_float");
    }
}
