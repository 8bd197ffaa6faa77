// acc4j: kernel acc_Kernels1D_intOps_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.Kernels1D.intOps, region 0 (loop at Kernels1D.java:36)
// parallelizable: no loop-carried dependence; Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (128, 1, 1), grid (ceil(trip(i) / 128) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Kernels1D_intOps_r0.cu
// (-fmad=false because Java rounds a * b and then + c; nvcc would fuse them into one fma).
// int and long + - * are written as C's: Java wraps on overflow, C calls it undefined, and nvcc emits
// the wrapping instructions.

#include <cuda_runtime.h>

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

/* The iterations of for (x = lo; x < ub; x += step), step > 0, in 64 bits so that no index
   overflows; 0 when the loop does not run. */
__device__ __forceinline__ long long acc_trip_lt(long long lo, long long ub, long long step) {
    long long d = ub - lo;
    return d > 0 ? (d + step - 1) / step : 0;
}

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

extern "C" __global__ void acc_Kernels1D_intOps_r0(
    acc_error* err,
    int* out,  /* int[] out, written */
    int out_len,
    const int* x,  /* int[] x, read only */
    int x_len,
    const int* y,  /* int[] y, read only */
    int y_len,
    int n
)
{
    int i, d, m;
    long long trip_i, t_i;

    /* Kernels1D.java:36 */
    /* for i: parallelizable */
    trip_i = acc_trip_lt(0, n, 1);
    for (t_i = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_i < trip_i; t_i += (long long) gridDim.x * blockDim.x) {
        i = (int) t_i;
        /* Kernels1D.java:37 */
        if ((unsigned int) i >= (unsigned int) x_len) { acc_raise(err, 1, i); return; }
        if ((unsigned int) i >= (unsigned int) y_len) { acc_raise(err, 2, i); return; }
        if (y[i] == 0) { acc_raise(err, 3, 0); return; }  /* ArithmeticException: / by zero */
        d = acc_div(x[i], y[i]);
        /* Kernels1D.java:38 */
        if ((unsigned int) i >= (unsigned int) x_len) { acc_raise(err, 4, i); return; }
        if ((unsigned int) i >= (unsigned int) y_len) { acc_raise(err, 5, i); return; }
        if (y[i] == 0) { acc_raise(err, 6, 0); return; }  /* ArithmeticException: / by zero */
        m = acc_rem(x[i], y[i]);
        /* Kernels1D.java:39 */
        if ((unsigned int) i >= (unsigned int) x_len) { acc_raise(err, 7, i); return; }
        if ((unsigned int) i >= (unsigned int) y_len) { acc_raise(err, 8, i); return; }
        if (x[i] < y[i]) {
            if (d != 0) {
                /* Kernels1D.java:40 */
                if ((unsigned int) i >= (unsigned int) out_len) { acc_raise(err, 9, i); return; }
                out[i] = d - m;
            } else {
                /* Kernels1D.java:42 */
                if ((unsigned int) i >= (unsigned int) out_len) { acc_raise(err, 10, i); return; }
                out[i] = d * m + i;
            }
        } else {
            if ((unsigned int) i >= (unsigned int) out_len) { acc_raise(err, 11, i); return; }
            out[i] = d * m + i;
        }
    }
}
