// acc4j: kernel acc_Nests_collapsed_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.Nests.collapsed, region 0 (loop at Nests.java:145)
// parallel: mapped by the user; Map1: block(32, 1, 1); ij from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (32, 1, 1), grid (ceil(trip(i*j) / 32) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Nests_collapsed_r0.cu
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

/* The iterations of for (x = lo; x >= ub; x -= step), step > 0, in 64 bits so that no index
   overflows; 0 when the loop does not run. */
__device__ __forceinline__ long long acc_trip_ge(long long lo, long long ub, long long step) {
    long long d = lo - ub;
    return d >= 0 ? d / step + 1 : 0;
}

extern "C" __global__ void acc_Nests_collapsed_r0(
    acc_error* err,
    float* a,  /* float[] a, written */
    int a_len,
    const float* b,  /* float[] b, read only */
    int b_len,
    int rows,
    int cols
)
{
    int i, j;
    long long trip_i, lo_j, trip_j, trip_ij, t_ij;

    /* Nests.java:145 */
    /* for i, j: mapped by the user @Loop(gang, vector=32, collapse=2) */
    trip_i = acc_trip_lt(0, rows, 1);
    lo_j = cols - 1;
    trip_j = acc_trip_ge(lo_j, 0, 2);
    trip_ij = trip_i * trip_j;  /* collapse(2): one level */
    for (t_ij = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_ij < trip_ij; t_ij += (long long) gridDim.x * blockDim.x) {
        i = (int) (t_ij / trip_j);
        j = (int) (lo_j - (t_ij % trip_j) * 2);
        /* Nests.java:147 */
        if ((unsigned int) (j * rows + i) >= (unsigned int) b_len) { acc_raise(err, 1, j * rows + i); return; }
        if ((unsigned int) (i * cols + j) >= (unsigned int) a_len) { acc_raise(err, 2, i * cols + j); return; }
        a[i * cols + j] = b[j * rows + i] * 2.0f - 1.0f;
    }
}
