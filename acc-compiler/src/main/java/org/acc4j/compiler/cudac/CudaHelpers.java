package org.acc4j.compiler.cudac;

import org.acc4j.compiler.ir.Elem;
import org.acc4j.compiler.ir.Reduction;
import org.acc4j.compiler.ir.Type;

/**
 * The small inline functions at the top of a CUDA C rendering, one group each, written out only when the kernel
 * uses them. Each says which Java rule it keeps where C's differs.
 */
enum CudaHelpers {
    ERROR("""
            /* The error record the runtime reads after the launch: the code of the first site that failed (its place in
               the kernel's list of sites, from 1), and the detail (the bad index). */
            typedef struct { unsigned int code; unsigned int unused; long long detail; } acc_error;

            /* Records a failed site unless another thread's came first. The thread then stops, as Java would: the
               access that failed touches no memory. */
            static __device__ void acc_raise(acc_error* err, unsigned int site, long long detail) {
                if (atomicCAS(&err->code, 0u, site) == 0u) {
                    err->detail = detail;
                }
            }
            """),
    AT("""
            /* The detail of a failed a[row][index]: the row in the high 32 bits, the index in the low ones. */
            __device__ __forceinline__ long long acc_at(int row, int index) {
                return (long long) ((unsigned long long) (unsigned int) row << 32 | (unsigned int) index);
            }
            """),
    ROW_BOOLEAN(row("unsigned char", "boolean")),
    ROW_BYTE(row("signed char", "byte")),
    ROW_SHORT(row("short", "short")),
    ROW_CHAR(row("unsigned short", "char")),
    ROW_INT(row("int", "int")),
    ROW_LONG(row("long long", "long")),
    ROW_FLOAT(row("float", "float")),
    ROW_DOUBLE(row("double", "double")),
    TRIP_LT(trip("lt", "<", "ub - lo", "d > 0 ? (d + step - 1) / step : 0")),
    TRIP_LE(trip("le", "<=", "ub - lo", "d >= 0 ? d / step + 1 : 0")),
    TRIP_GT(trip("gt", ">", "lo - ub", "d > 0 ? (d + step - 1) / step : 0")),
    TRIP_GE(trip("ge", ">=", "lo - ub", "d >= 0 ? d / step + 1 : 0")),
    TRIP_NE("""
            /* The iterations of for (x = lo; x != ub; x += step), step signed: the host checked before the launch
               that ub - lo is a whole number of steps in the step's direction (else the call ran as plain Java). */
            __device__ __forceinline__ long long acc_trip_ne(long long lo, long long ub, long long step) {
                return (ub - lo) / step;
            }
            """),
    DIV("""
            /* Java's / and % on int and long: they truncate, and MIN_VALUE / -1 wraps to MIN_VALUE (C leaves it
               undefined). A zero divisor never gets here: it is checked before and raises ArithmeticException. */
            __device__ __forceinline__ int acc_div(int a, int b) {
                return b == -1 ? (int) (0u - (unsigned int) a) : a / b;
            }
            __device__ __forceinline__ long long acc_div(long long a, long long b) {
                return b == -1 ? (long long) (0ull - (unsigned long long) a) : a / b;
            }
            __device__ __forceinline__ int acc_rem(int a, int b) {
                return b == -1 ? 0 : a % b;
            }
            __device__ __forceinline__ long long acc_rem(long long a, long long b) {
                return b == -1 ? 0 : a % b;
            }
            """),
    SHIFT("""
            /* Java's shifts: the count is masked to 0..31 (0..63 for long); >>> shifts zeros in. */
            __device__ __forceinline__ int acc_shl(int a, int n) { return (int) ((unsigned int) a << (n & 31)); }
            __device__ __forceinline__ int acc_shr(int a, int n) { return a >> (n & 31); }
            __device__ __forceinline__ int acc_ushr(int a, int n) { return (int) ((unsigned int) a >> (n & 31)); }
            __device__ __forceinline__ long long acc_shl(long long a, int n) {
                return (long long) ((unsigned long long) a << (n & 63));
            }
            __device__ __forceinline__ long long acc_shr(long long a, int n) { return a >> (n & 63); }
            __device__ __forceinline__ long long acc_ushr(long long a, int n) {
                return (long long) ((unsigned long long) a >> (n & 63));
            }
            """),
    TO_INT("""
            /* Java's (int) and (long) of a float or double: toward zero, saturated at the type's range, and 0 for NaN. */
            __device__ __forceinline__ int acc_d2i(double x) { return x != x ? 0 : __double2int_rz(x); }
            __device__ __forceinline__ long long acc_d2l(double x) { return x != x ? 0 : __double2ll_rz(x); }
            __device__ __forceinline__ int acc_f2i(float x) { return x != x ? 0 : __float2int_rz(x); }
            __device__ __forceinline__ long long acc_f2l(float x) { return x != x ? 0 : __float2ll_rz(x); }
            """),
    NAN_COMPARE("""
            /* Comparisons that are true when an operand is NaN (javac compiles !(a >= b) and the like to these).
               C's <, <=, >, >=, == are false on NaN and != is true, as Java's; acc_ne_ordered is false on NaN. */
            __device__ __forceinline__ bool acc_lt_or_nan(double a, double b) { return !(a >= b); }
            __device__ __forceinline__ bool acc_le_or_nan(double a, double b) { return !(a > b); }
            __device__ __forceinline__ bool acc_gt_or_nan(double a, double b) { return !(a <= b); }
            __device__ __forceinline__ bool acc_ge_or_nan(double a, double b) { return !(a < b); }
            __device__ __forceinline__ bool acc_eq_or_nan(double a, double b) { return !(a < b || a > b); }
            __device__ __forceinline__ bool acc_ne_ordered(double a, double b) { return a < b || a > b; }
            __device__ __forceinline__ bool acc_lt_or_nan(float a, float b) { return !(a >= b); }
            __device__ __forceinline__ bool acc_le_or_nan(float a, float b) { return !(a > b); }
            __device__ __forceinline__ bool acc_gt_or_nan(float a, float b) { return !(a <= b); }
            __device__ __forceinline__ bool acc_ge_or_nan(float a, float b) { return !(a < b); }
            __device__ __forceinline__ bool acc_eq_or_nan(float a, float b) { return !(a < b || a > b); }
            __device__ __forceinline__ bool acc_ne_ordered(float a, float b) { return a < b || a > b; }
            """),
    CMP("""
            /* Java's three-way comparisons: lcmp gives -1, 0 or 1; fcmpg/dcmpg give 1 for NaN, fcmpl/dcmpl -1. */
            __device__ __forceinline__ int acc_cmp(long long a, long long b) { return (a > b) - (a < b); }
            __device__ __forceinline__ int acc_cmp(int a, int b) { return (a > b) - (a < b); }
            __device__ __forceinline__ int acc_cmpg(double a, double b) {
                return a < b ? -1 : a > b ? 1 : a == b ? 0 : 1;
            }
            __device__ __forceinline__ int acc_cmpl(double a, double b) {
                return a < b ? -1 : a > b ? 1 : a == b ? 0 : -1;
            }
            __device__ __forceinline__ int acc_cmpg(float a, float b) {
                return a < b ? -1 : a > b ? 1 : a == b ? 0 : 1;
            }
            __device__ __forceinline__ int acc_cmpl(float a, float b) {
                return a < b ? -1 : a > b ? 1 : a == b ? 0 : -1;
            }
            """),
    MIN_MAX("""
            /* Java's Math.min and Math.max on double and float: NaN when either operand is (the first NaN), and
               -0.0 is less than 0.0 (C's fmin and fmax return the other operand for a NaN). */
            __device__ __forceinline__ double acc_min(double a, double b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == 0.0 && b == 0.0) return __longlong_as_double(__double_as_longlong(a) | __double_as_longlong(b));
                return a <= b ? a : b;
            }
            __device__ __forceinline__ double acc_max(double a, double b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == 0.0 && b == 0.0) return __longlong_as_double(__double_as_longlong(a) & __double_as_longlong(b));
                return a >= b ? a : b;
            }
            __device__ __forceinline__ float acc_min(float a, float b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == 0.0f && b == 0.0f) return __int_as_float(__float_as_int(a) | __float_as_int(b));
                return a <= b ? a : b;
            }
            __device__ __forceinline__ float acc_max(float a, float b) {
                if (a != a) return a;
                if (b != b) return b;
                if (a == 0.0f && b == 0.0f) return __int_as_float(__float_as_int(a) & __float_as_int(b));
                return a >= b ? a : b;
            }
            """),
    ABS("""
            /* Java's Math.abs on int and long: abs(MIN_VALUE) is MIN_VALUE (C leaves it undefined). */
            __device__ __forceinline__ int acc_abs(int a) { return a < 0 ? (int) (0u - (unsigned int) a) : a; }
            __device__ __forceinline__ long long acc_abs(long long a) {
                return a < 0 ? (long long) (0ull - (unsigned long long) a) : a;
            }
            """),
    ATOMIC_ADD_F32("""
            /* Java's float add, atomically: a compare-and-set loop on the bits, as VarHandle.getAndAdd does (CUDA's
               atomicAdd on a float flushes subnormal operands and results to zero). Returns the old value. */
            __device__ __forceinline__ float acc_atomic_add(float* p, float v) {
                unsigned int* q = (unsigned int*) p;
                unsigned int old = *(volatile unsigned int*) q;
                unsigned int seen;
                while ((seen = atomicCAS(q, old, __float_as_uint(__fadd_rn(__uint_as_float(old), v)))) != old) {
                    old = seen;
                }
                return __uint_as_float(old);
            }
            """),
    ATOMIC_MIN_MAX_F("""
            /* Java's Math.min and Math.max on float and double, atomically: a compare-and-set loop on the bits with
               acc_min and acc_max (CUDA has no floating-point atomicMin). Returns the old value. */
            __device__ __forceinline__ float acc_atomic_min(float* p, float v) {
                unsigned int* q = (unsigned int*) p;
                unsigned int old = *(volatile unsigned int*) q;
                for (;;) {
                    unsigned int next = __float_as_uint(acc_min(__uint_as_float(old), v));
                    unsigned int seen;
                    if (next == old || (seen = atomicCAS(q, old, next)) == old) return __uint_as_float(old);
                    old = seen;
                }
            }
            __device__ __forceinline__ float acc_atomic_max(float* p, float v) {
                unsigned int* q = (unsigned int*) p;
                unsigned int old = *(volatile unsigned int*) q;
                for (;;) {
                    unsigned int next = __float_as_uint(acc_max(__uint_as_float(old), v));
                    unsigned int seen;
                    if (next == old || (seen = atomicCAS(q, old, next)) == old) return __uint_as_float(old);
                    old = seen;
                }
            }
            __device__ __forceinline__ double acc_atomic_min(double* p, double v) {
                unsigned long long* q = (unsigned long long*) p;
                unsigned long long old = *(volatile unsigned long long*) q;
                for (;;) {
                    unsigned long long next = (unsigned long long) __double_as_longlong(
                            acc_min(__longlong_as_double((long long) old), v));
                    unsigned long long seen;
                    if (next == old || (seen = atomicCAS(q, old, next)) == old) return __longlong_as_double((long long) old);
                    old = seen;
                }
            }
            __device__ __forceinline__ double acc_atomic_max(double* p, double v) {
                unsigned long long* q = (unsigned long long*) p;
                unsigned long long old = *(volatile unsigned long long*) q;
                for (;;) {
                    unsigned long long next = (unsigned long long) __double_as_longlong(
                            acc_max(__longlong_as_double((long long) old), v));
                    unsigned long long seen;
                    if (next == old || (seen = atomicCAS(q, old, next)) == old) return __longlong_as_double((long long) old);
                    old = seen;
                }
            }
            """);

    final String text;

    CudaHelpers(String text) {
        this.text = text;
    }

    private static String trip(String name, String cond, String distance, String count) {
        return "/* The iterations of for (x = lo; x " + cond + " ub; x " + (cond.startsWith("<") ? "+" : "-")
                + "= step), step > 0, in 64 bits so that no index\n"
                + "   overflows; 0 when the loop does not run. */\n"
                + "__device__ __forceinline__ long long acc_trip_" + name + "(long long lo, long long ub, long long step) {\n"
                + "    long long d = " + distance + ";\n"
                + "    return " + count + ";\n"
                + "}\n";
    }

    private static String row(String c, String name) {
        return "/* A row of a Java " + name + "[][] on the device, as acc4j's row table holds it: its elements and its\n"
                + "   length (16 bytes). */\n"
                + "typedef struct { " + c + "* data; int length; } acc_row_" + name + ";\n";
    }

    static CudaHelpers rowOf(Elem element) {
        return switch (element) {
            case BOOLEAN -> ROW_BOOLEAN;
            case BYTE -> ROW_BYTE;
            case SHORT -> ROW_SHORT;
            case CHAR -> ROW_CHAR;
            case INT -> ROW_INT;
            case LONG -> ROW_LONG;
            case FLOAT -> ROW_FLOAT;
            case DOUBLE -> ROW_DOUBLE;
        };
    }

    /**
     * The device function combining {@code r}'s values over the grid: the same tree, in the same order, as the
     * {@code ptx-templates} routine of the same name, so it gives the same bits.
     */
    static String reduction(Reduction r) {
        var routine = r.routine();
        String name = routine.symbol();
        String t = CudaCRenderer.cType(r.type());
        String suffix = name.substring("acc_reduce_".length());
        String combine = "acc_combine_" + suffix;
        String tree = "acc_block_tree_" + suffix;
        String body = switch (r.op()) {
            case ADD, MUL -> {
                if (r.type().isFloat()) {
                    String intrinsic = "__" + (r.type() == Type.F64 ? "d" : "f") + (r.op() == Reduction.Op.ADD ? "add" : "mul")
                            + "_rn";
                    String nan = r.type() == Type.F64 ? "__longlong_as_double(0x7ff8000000000000LL)" : "__int_as_float(0x7fc00000)";
                    yield "    " + t + " c = " + intrinsic + "(a, b); /* rounded to nearest, never fused */\n"
                            + "    return c != c ? " + nan + " : c; /* a NaN result is Java's canonical NaN */\n";
                }
                String u = r.type() == Type.I64 ? "unsigned long long" : "unsigned int";
                yield "    return (" + t + ") ((" + u + ") a " + (r.op() == Reduction.Op.ADD ? "+" : "*") + " (" + u
                        + ") b); /* wraps, as Java */\n";
            }
            case MAX, MIN -> {
                String fn = r.op() == Reduction.Op.MAX ? "max" : "min";
                yield "    return " + (r.type().isFloat() ? "acc_" + fn : fn) + "(a, b);"
                        + (r.type().isFloat() ? " /* Java's Math." + fn + " */" : "") + "\n";
            }
            case AND -> "    return a & b;\n";
            case OR -> "    return a | b;\n";
            case XOR -> "    return a ^ b;\n";
        };
        return "/* " + r + " over " + r.type().javaName() + ": combines one value per thread of the grid into *result, in\n"
                + "   the order of ptx-templates' " + name + " (so with the same bits): in each warp, lane i takes\n"
                + "   op(a[i], a[i + o]) for o = 16, 8, 4, 2, 1; warp 0 does the same over the warps' values; thread 0 stores\n"
                + "   the block's value; the last block to arrive folds the blocks' values (thread l: partials[l],\n"
                + "   partials[l + threads], ...) and runs the same tree. Every thread of every block calls it once. */\n"
                + "__device__ __forceinline__ " + t + " " + combine + "(" + t + " a, " + t + " b) {\n"
                + body + "}\n\n"
                + "/* The block's tree over the values of its threads 0..n-1; thread 0 gets the result. */\n"
                + "static __device__ " + t + " " + tree + "(" + t + " a, unsigned int n, " + t + "* slots) {\n"
                + "    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;\n"
                + "    unsigned int l = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
                + "    unsigned int lane = l & 31, warp = l >> 5;\n"
                + "    unsigned int present = min(threads - 32 * warp, 32u); /* a block need not be a multiple of 32 */\n"
                + "    unsigned int mask = present == 32 ? 0xffffffffu : (1u << present) - 1;\n"
                + "    int valid = min(max((int) n - (int) (32 * warp), 0), 32);\n"
                + "    for (unsigned int o = 16; o != 0; o >>= 1) {\n"
                + "        " + t + " other = __shfl_down_sync(mask, a, o);\n"
                + "        if ((int) (lane + o) < valid) a = " + combine + "(a, other);\n"
                + "    }\n"
                + "    if (lane == 0 && valid > 0) slots[warp] = a;\n"
                + "    __syncthreads();\n"
                + "    if (warp == 0) {\n"
                + "        unsigned int warps = (n + 31) / 32;\n"
                + "        if (lane < warps) a = slots[lane];\n"
                + "        for (unsigned int o = 16; o != 0; o >>= 1) {\n"
                + "            " + t + " other = __shfl_down_sync(mask, a, o);\n"
                + "            if (lane + o < warps) a = " + combine + "(a, other);\n"
                + "        }\n"
                + "    }\n"
                + "    return a;\n"
                + "}\n\n"
                + "static __device__ void " + name + "(" + t + " v, " + t + "* partials, unsigned int* counter, " + t
                + "* result) {\n"
                + "    __shared__ " + t + " slots[32];\n"
                + "    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;\n"
                + "    unsigned int l = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
                + "    unsigned long long blocks = (unsigned long long) gridDim.x * gridDim.y * gridDim.z;\n"
                + "    unsigned long long b = blockIdx.x + (unsigned long long) gridDim.x * (blockIdx.y + (unsigned long long) gridDim.y * blockIdx.z);\n"
                + "    __syncthreads(); /* a reduction before this one may still be reading the slots */\n"
                + "    " + t + " a = " + tree + "(v, threads, slots);\n"
                + "    int last = 0;\n"
                + "    if (l == 0) {\n"
                + "        partials[b] = a;\n"
                + "        __threadfence();\n"
                + "        /* the blocks-th arrival is the last block; atomicInc wraps the counter to 0 there, for the next launch */\n"
                + "        last = atomicInc(counter, (unsigned int) (blocks - 1)) == (unsigned int) (blocks - 1);\n"
                + "    }\n"
                + "    if (!__syncthreads_or(last)) return;\n"
                + "    __threadfence();\n"
                + "    if (l < blocks) {\n"
                + "        a = __ldcg(&partials[l]);\n"
                + "        for (unsigned long long k = l + threads; k < blocks; k += threads) a = " + combine
                + "(a, __ldcg(&partials[k]));\n"
                + "    }\n"
                + "    a = " + tree + "(a, (unsigned int) min(blocks, (unsigned long long) threads), slots);\n"
                + "    if (l == 0) *result = a;\n"
                + "}\n";
    }
}
