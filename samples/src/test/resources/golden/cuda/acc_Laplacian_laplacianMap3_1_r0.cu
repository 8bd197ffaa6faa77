// acc4j: kernel acc_Laplacian_laplacianMap3_1_r0 as CUDA C, for reading
// org.acc4j.samples.Laplacian.laplacianMap3_1, region 0 (loop at Laplacian.java:49)
// parallel: mapped by the user; Map3_1: block(128, 2, 1); i from blockIdx.y by gridDim.y; j from blockIdx.x * blockDim.y + threadIdx.y by gridDim.x * blockDim.y; k from threadIdx.x by blockDim.x
// mapping Map3_1: block (128, 2, 1), grid (ceil(trip(j) / 2), ceil(trip(i) / 1) <= 65535, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Laplacian_laplacianMap3_1_r0.cu
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

extern "C" __global__ void acc_Laplacian_laplacianMap3_1_r0(
    acc_error* err,
    double* b,  /* double[] b, written */
    int b_len,
    const double* a,  /* double[] a, read only */
    int a_len,
    int nx,
    int ny,
    int nz,
    double cx,
    double cy,
    double cz
)
{
    int i, j, k, c;
    long long trip_i, t_i, trip_j, t_j, trip_k, t_k;

    /* Laplacian.java:49  for (@Loop(gang = Loop.AUTO) int i = 1; i < nx - 1; i++) { */
    /* for i: mapped by the user @Loop(gang) */
    trip_i = acc_trip_lt(1, nx - 1, 1);
    for (t_i = blockIdx.y; t_i < trip_i; t_i += gridDim.y) {
        i = (int) (1 + t_i);
        /* Laplacian.java:50  for (@Loop(gang = Loop.AUTO, vector = 2) int j = 1; j < ny - 1; j++) { */
        /* for j: mapped by the user @Loop(gang, vector=2) */
        trip_j = acc_trip_lt(1, ny - 1, 1);
        for (t_j = (long long) blockIdx.x * blockDim.y + threadIdx.y; t_j < trip_j; t_j += (long long) gridDim.x * blockDim.y) {
            j = (int) (1 + t_j);
            /* Laplacian.java:51  for (@Loop(vector = 128) int k = 1; k < nz - 1; k++) { */
            /* for k: mapped by the user @Loop(vector=128); on threadIdx.x for coalescing (stride-1 subscripts) */
            trip_k = acc_trip_lt(1, nz - 1, 1);
            for (t_k = threadIdx.x; t_k < trip_k; t_k += blockDim.x) {
                k = (int) (1 + t_k);
                /* Laplacian.java:52  int c = (i * ny + j) * nz + k; */
                c = (i * ny + j) * nz + k;
                /* Laplacian.java:53  b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz]) */
                if ((unsigned int) (c - ny * nz) >= (unsigned int) a_len) { acc_raise(err, 1, c - ny * nz); return; }
                if ((unsigned int) c >= (unsigned int) a_len) { acc_raise(err, 2, c); return; }
                if ((unsigned int) (c + ny * nz) >= (unsigned int) a_len) { acc_raise(err, 3, c + ny * nz); return; }
                if ((unsigned int) (c - nz) >= (unsigned int) a_len) { acc_raise(err, 4, c - nz); return; }
                if ((unsigned int) c >= (unsigned int) a_len) { acc_raise(err, 5, c); return; }
                if ((unsigned int) (c + nz) >= (unsigned int) a_len) { acc_raise(err, 6, c + nz); return; }
                if ((unsigned int) (c - 1) >= (unsigned int) a_len) { acc_raise(err, 7, c - 1); return; }
                if ((unsigned int) c >= (unsigned int) a_len) { acc_raise(err, 8, c); return; }
                if ((unsigned int) (c + 1) >= (unsigned int) a_len) { acc_raise(err, 9, c + 1); return; }
                if ((unsigned int) c >= (unsigned int) b_len) { acc_raise(err, 10, c); return; }
                b[c] = cx * (a[c - ny * nz] - 2.0 * a[c] + a[c + ny * nz]) + cy * (a[c - nz] - 2.0 * a[c] + a[c + nz]) + cz * (a[c - 1] - 2.0 * a[c] + a[c + 1]);
            }
        }
    }
}
