// acc4j: kernel acc_Nests_stencilMap33_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.Nests.stencilMap33, region 0 (loop at Nests.java:133)
// parallel: mapped by the user; Map3_3: block(16, 2, 1); i from threadIdx.x by blockDim.x; j from blockIdx.y * blockDim.y + threadIdx.y by gridDim.y * blockDim.y; k from blockIdx.x by gridDim.x
// mapping Map3_3: block (16, 2, 1), grid (ceil(trip(k) / 1), ceil(trip(j) / 2) <= 65535, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Nests_stencilMap33_r0.cu
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

extern "C" __global__ void acc_Nests_stencilMap33_r0(
    acc_error* err,
    double* a,  /* double[] a, written */
    int a_len,
    const double* b,  /* double[] b, read only */
    int b_len,
    int nx,
    int ny,
    int nz
)
{
    int i, j, k, c;
    long long trip_i, t_i, trip_j, t_j, trip_k, t_k;

    /* Nests.java:133 */
    /* for i: mapped by the user @Loop(vector=16); on threadIdx.x for coalescing (stride-1 subscripts) */
    trip_i = acc_trip_lt(1, nx - 1, 1);
    for (t_i = threadIdx.x; t_i < trip_i; t_i += blockDim.x) {
        i = (int) (1 + t_i);
        /* Nests.java:134 */
        /* for j: mapped by the user @Loop(gang, vector=2) */
        trip_j = acc_trip_lt(1, ny - 1, 1);
        for (t_j = (long long) blockIdx.y * blockDim.y + threadIdx.y; t_j < trip_j; t_j += (long long) gridDim.y * blockDim.y) {
            j = (int) (1 + t_j);
            /* Nests.java:135 */
            /* for k: mapped by the user @Loop(gang) */
            trip_k = acc_trip_lt(1, nz - 1, 1);
            for (t_k = blockIdx.x; t_k < trip_k; t_k += gridDim.x) {
                k = (int) (1 + t_k);
                /* Nests.java:136 */
                c = i + nx * (j + ny * k);
                /* Nests.java:137 */
                if ((unsigned int) c >= (unsigned int) b_len) { acc_raise(err, 1, c); return; }
                if ((unsigned int) (c - 1) >= (unsigned int) b_len) { acc_raise(err, 2, c - 1); return; }
                if ((unsigned int) (c + 1) >= (unsigned int) b_len) { acc_raise(err, 3, c + 1); return; }
                if ((unsigned int) (c - nx) >= (unsigned int) b_len) { acc_raise(err, 4, c - nx); return; }
                if ((unsigned int) (c + nx) >= (unsigned int) b_len) { acc_raise(err, 5, c + nx); return; }
                if ((unsigned int) (c - nx * ny) >= (unsigned int) b_len) { acc_raise(err, 6, c - nx * ny); return; }
                if ((unsigned int) (c + nx * ny) >= (unsigned int) b_len) { acc_raise(err, 7, c + nx * ny); return; }
                if ((unsigned int) c >= (unsigned int) a_len) { acc_raise(err, 8, c); return; }
                a[c] = b[c] * 0.5 + (b[c - 1] + b[c + 1] + b[c - nx] + b[c + nx] + b[c - nx * ny] + b[c + nx * ny]) / 12.0;
            }
        }
    }
}
