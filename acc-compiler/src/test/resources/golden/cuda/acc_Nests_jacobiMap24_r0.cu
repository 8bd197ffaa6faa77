// acc4j: kernel acc_Nests_jacobiMap24_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.Nests.jacobiMap24, region 0 (loop at Nests.java:50)
// parallel: mapped by the user; Map2_4: block(16, 2, 1); i from blockIdx.y * blockDim.y + threadIdx.y by gridDim.y * blockDim.y; j from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map2_4: block (16, 2, 1), grid (ceil(trip(j) / 16), 3, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Nests_jacobiMap24_r0.cu
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

extern "C" __global__ void acc_Nests_jacobiMap24_r0(
    acc_error* err,
    double* a,  /* double[] a, written */
    int a_len,
    const double* b,  /* double[] b, read only */
    int b_len,
    int n
)
{
    int i, j;
    long long trip_i, t_i, trip_j, t_j;

    /* Nests.java:50 */
    /* for i: mapped by the user @Loop(gang=3, vector=2) */
    trip_i = acc_trip_lt(1, n - 1, 1);
    for (t_i = (long long) blockIdx.y * blockDim.y + threadIdx.y; t_i < trip_i; t_i += (long long) gridDim.y * blockDim.y) {
        i = (int) (1 + t_i);
        /* Nests.java:51 */
        /* for j: mapped by the user @Loop(gang, vector=16); on threadIdx.x for coalescing (stride-1 subscripts) */
        trip_j = acc_trip_lt(1, n - 1, 1);
        for (t_j = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_j < trip_j; t_j += (long long) gridDim.x * blockDim.x) {
            j = (int) (1 + t_j);
            /* Nests.java:52 */
            if ((unsigned int) ((i - 1) * n + j) >= (unsigned int) b_len) { acc_raise(err, 1, (i - 1) * n + j); return; }
            if ((unsigned int) ((i + 1) * n + j) >= (unsigned int) b_len) { acc_raise(err, 2, (i + 1) * n + j); return; }
            if ((unsigned int) (i * n + j - 1) >= (unsigned int) b_len) { acc_raise(err, 3, i * n + j - 1); return; }
            if ((unsigned int) (i * n + j + 1) >= (unsigned int) b_len) { acc_raise(err, 4, i * n + j + 1); return; }
            if ((unsigned int) (i * n + j) >= (unsigned int) a_len) { acc_raise(err, 5, i * n + j); return; }
            a[i * n + j] = 0.25 * (b[(i - 1) * n + j] + b[(i + 1) * n + j] + b[i * n + j - 1] + b[i * n + j + 1]);
        }
    }
}
