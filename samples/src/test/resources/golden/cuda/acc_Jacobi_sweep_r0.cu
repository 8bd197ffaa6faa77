// acc4j: kernel acc_Jacobi_sweep_r0 as CUDA C, for reading
// org.acc4j.samples.Jacobi.sweep, region 0 (loop at Jacobi.java:34)
// parallelizable: no loop-carried dependence (disjoint writes checked at launch); Map2_4: block(128, 2, 1); i from blockIdx.y * blockDim.y + threadIdx.y by gridDim.y * blockDim.y; j from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map2_4: block (128, 2, 1), grid (ceil(trip(j) / 128), ceil(trip(i) / 2) <= 65535, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Jacobi_sweep_r0.cu
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

extern "C" __global__ void acc_Jacobi_sweep_r0(
    acc_error* err,
    double* dst,  /* double[] dst, written */
    int dst_len,
    const double* src,  /* double[] src, read only */
    int src_len,
    int m,
    int n
)
{
    int i, j;
    long long trip_i, t_i, trip_j, t_j;

    /* Jacobi.java:34  for (int i = 1; i < m - 1; i++) { */
    /* for i: parallelizable */
    trip_i = acc_trip_lt(1, m - 1, 1);
    for (t_i = (long long) blockIdx.y * blockDim.y + threadIdx.y; t_i < trip_i; t_i += (long long) gridDim.y * blockDim.y) {
        i = (int) (1 + t_i);
        /* Jacobi.java:35  for (int j = 1; j < n - 1; j++) { */
        /* for j: parallelizable; on threadIdx.x for coalescing (stride-1 subscripts) */
        trip_j = acc_trip_lt(1, n - 1, 1);
        for (t_j = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_j < trip_j; t_j += (long long) gridDim.x * blockDim.x) {
            j = (int) (1 + t_j);
            /* Jacobi.java:36  dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] */
            if ((unsigned int) ((i - 1) * n + j) >= (unsigned int) src_len) { acc_raise(err, 1, (i - 1) * n + j); return; }
            if ((unsigned int) ((i + 1) * n + j) >= (unsigned int) src_len) { acc_raise(err, 2, (i + 1) * n + j); return; }
            if ((unsigned int) (i * n + j - 1) >= (unsigned int) src_len) { acc_raise(err, 3, i * n + j - 1); return; }
            if ((unsigned int) (i * n + j + 1) >= (unsigned int) src_len) { acc_raise(err, 4, i * n + j + 1); return; }
            if ((unsigned int) (i * n + j) >= (unsigned int) dst_len) { acc_raise(err, 5, i * n + j); return; }
            dst[i * n + j] = 0.25 * (src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] + src[i * n + j + 1]);
        }
    }
}
