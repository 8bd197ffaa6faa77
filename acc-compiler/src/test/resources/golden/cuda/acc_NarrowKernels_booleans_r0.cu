// acc4j: kernel acc_NarrowKernels_booleans_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.NarrowKernels.booleans, region 0 (loop at NarrowKernels.java:47)
// parallelizable: no loop-carried dependence; Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (128, 1, 1), grid (ceil(trip(i) / 128) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_NarrowKernels_booleans_r0.cu
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

extern "C" __global__ void acc_NarrowKernels_booleans_r0(
    acc_error* err,
    unsigned char* positive,  /* boolean[] positive, written */
    int positive_len,
    unsigned char* flip,  /* boolean[] flip, written */
    int flip_len,
    const int* a,  /* int[] a, read only */
    int a_len,
    int n
)
{
    int i, stack0, p, f;
    long long trip_i, t_i;

    /* NarrowKernels.java:47 */
    /* for i: parallelizable */
    trip_i = acc_trip_lt(0, n, 1);
    for (t_i = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_i < trip_i; t_i += (long long) gridDim.x * blockDim.x) {
        i = (int) t_i;
        /* NarrowKernels.java:48 */
        if ((unsigned int) i >= (unsigned int) a_len) { acc_raise(err, 1, i); return; }
        if (a[i] > 0) {
            stack0 = 1;
        } else {
            stack0 = 0;
        }
        p = stack0;
        /* NarrowKernels.java:49 */
        if ((unsigned int) i >= (unsigned int) flip_len) { acc_raise(err, 2, i); return; }
        if (flip[i] == 0) {
            stack0 = 1;
        } else {
            stack0 = 0;
        }
        f = stack0 ^ p;
        /* NarrowKernels.java:50 */
        if ((unsigned int) i >= (unsigned int) positive_len) { acc_raise(err, 3, i); return; }
        positive[i] = p & 1;
        /* NarrowKernels.java:51 */
        if ((unsigned int) i >= (unsigned int) flip_len) { acc_raise(err, 4, i); return; }
        flip[i] = f & 1;
    }
}
