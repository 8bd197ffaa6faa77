// acc4j: kernel acc_StridedLoops_butterfly_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.StridedLoops.butterfly, region 0 (loop at StridedLoops.java:33)
// parallelizable: no loop-carried dependence (disjoint writes checked at launch); Map1: block(128, 1, 1); b_iter from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (128, 1, 1), grid (ceil(trip(b_iter) / 128) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_StridedLoops_butterfly_r0.cu
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

extern "C" __global__ void acc_StridedLoops_butterfly_r0(
    acc_error* err,
    double* data,  /* double[] data, written */
    int data_len,
    int n,
    int dual,
    int a,
    double wReal,
    double wImag
)
{
    int b_iter, b, i, j, tmp0;
    double z1Real, z1Imag, wdReal, wdImag;
    long long trip_b_iter, t_b_iter;

    /* StridedLoops.java:33 */
    /* for b_iter: parallelizable */
    if ((long long) (2 * dual) == 0) { acc_raise(err, 1, 0); return; }  /* ArithmeticException: / by zero */
    trip_b_iter = acc_trip_lt(0, (int) acc_div((long long) n - (long long) 0 + ((long long) (2 * dual) - 1LL), (long long) (2 * dual)), 1);
    for (t_b_iter = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_b_iter < trip_b_iter; t_b_iter += (long long) gridDim.x * blockDim.x) {
        b_iter = (int) t_b_iter;
        b = b_iter * (2 * dual);
        /* StridedLoops.java:34 */
        i = 2 * (b + a);
        /* StridedLoops.java:35 */
        j = 2 * (b + a + dual);
        /* StridedLoops.java:36 */
        if ((unsigned int) j >= (unsigned int) data_len) { acc_raise(err, 2, j); return; }
        z1Real = data[j];
        /* StridedLoops.java:37 */
        if ((unsigned int) (j + 1) >= (unsigned int) data_len) { acc_raise(err, 3, j + 1); return; }
        z1Imag = data[j + 1];
        /* StridedLoops.java:38 */
        wdReal = wReal * z1Real - wImag * z1Imag;
        /* StridedLoops.java:39 */
        wdImag = wReal * z1Imag + wImag * z1Real;
        /* StridedLoops.java:40 */
        if ((unsigned int) i >= (unsigned int) data_len) { acc_raise(err, 4, i); return; }
        if ((unsigned int) j >= (unsigned int) data_len) { acc_raise(err, 5, j); return; }
        data[j] = data[i] - wdReal;
        /* StridedLoops.java:41 */
        if ((unsigned int) (i + 1) >= (unsigned int) data_len) { acc_raise(err, 6, i + 1); return; }
        if ((unsigned int) (j + 1) >= (unsigned int) data_len) { acc_raise(err, 7, j + 1); return; }
        data[j + 1] = data[i + 1] - wdImag;
        /* StridedLoops.java:42 */
        if ((unsigned int) i >= (unsigned int) data_len) { acc_raise(err, 8, i); return; }
        if ((unsigned int) i >= (unsigned int) data_len) { acc_raise(err, 9, i); return; }
        data[i] = data[i] + wdReal;
        /* StridedLoops.java:43 */
        tmp0 = i + 1;
        if ((unsigned int) tmp0 >= (unsigned int) data_len) { acc_raise(err, 10, tmp0); return; }
        if ((unsigned int) tmp0 >= (unsigned int) data_len) { acc_raise(err, 11, tmp0); return; }
        data[tmp0] = data[tmp0] + wdImag;
    }
}
