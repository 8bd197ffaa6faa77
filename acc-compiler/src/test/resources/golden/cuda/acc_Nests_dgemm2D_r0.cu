// acc4j: kernel acc_Nests_dgemm2D_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.Nests.dgemm2D, region 0 (loop at Nests.java:81)
// parallel: mapped by the user; Map2_4: block(16, 2, 1); i from blockIdx.y * blockDim.y + threadIdx.y by gridDim.y * blockDim.y; j from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map2_4: block (16, 2, 1), grid (ceil(trip(j) / 16), ceil(trip(i) / 2) <= 65535, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_Nests_dgemm2D_r0.cu
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

/* The detail of a failed a[row][index]: the row in the high 32 bits, the index in the low ones. */
__device__ __forceinline__ long long acc_at(int row, int index) {
    return (long long) ((unsigned long long) (unsigned int) row << 32 | (unsigned int) index);
}

/* A row of a Java double[][] on the device, as acc4j's row table holds it: its elements and its
   length (16 bytes). */
typedef struct { double* data; int length; } acc_row_double;

/* The iterations of for (x = lo; x < ub; x += step), step > 0, in 64 bits so that no index
   overflows; 0 when the loop does not run. */
__device__ __forceinline__ long long acc_trip_lt(long long lo, long long ub, long long step) {
    long long d = ub - lo;
    return d > 0 ? (d + step - 1) / step : 0;
}

extern "C" __global__ void acc_Nests_dgemm2D_r0(
    acc_error* err,
    const acc_row_double* a,  /* double[][] a, read only */
    int a_len,  /* rows */
    unsigned long long a_block,  /* the rows' block when they are one, else 0; this rendering reads every row from the table */
    int a_pitch,  /* the row length when the rows are one block, else -1 */
    const acc_row_double* b,  /* double[][] b, read only */
    int b_len,  /* rows */
    unsigned long long b_block,  /* the rows' block when they are one, else 0; this rendering reads every row from the table */
    int b_pitch,  /* the row length when the rows are one block, else -1 */
    const acc_row_double* c,  /* double[][] c, written */
    int c_len,  /* rows */
    unsigned long long c_block,  /* the rows' block when they are one, else 0; this rendering reads every row from the table */
    int c_pitch,  /* the row length when the rows are one block, else -1 */
    int n
)
{
    int i, v5_row, v6_row, j, k;
    double s;
    long long trip_i, t_i, trip_j, t_j;

    /* Nests.java:81 */
    /* for i: mapped by the user @Loop(gang, vector=2) */
    trip_i = acc_trip_lt(0, n, 1);
    for (t_i = (long long) blockIdx.y * blockDim.y + threadIdx.y; t_i < trip_i; t_i += (long long) gridDim.y * blockDim.y) {
        i = (int) t_i;
        /* Nests.java:82 */
        v5_row = i;
        /* Nests.java:83 */
        v6_row = i;
        /* Nests.java:84 */
        /* for j: mapped by the user @Loop(gang, vector=16); on threadIdx.x for coalescing (stride-1 subscripts) */
        trip_j = acc_trip_lt(0, n, 1);
        for (t_j = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_j < trip_j; t_j += (long long) gridDim.x * blockDim.x) {
            j = (int) t_j;
            /* Nests.java:85 */
            s = 0.0;
            /* Nests.java:86 -- sequential in each thread */
            for (k = 0; k < n; k++) {
                /* Nests.java:87 */
                if ((unsigned int) v6_row >= (unsigned int) a_len) { acc_raise(err, 1, v6_row); return; }
                if ((unsigned int) k >= (unsigned int) a[v6_row].length) { acc_raise(err, 2, acc_at(v6_row, k)); return; }
                if ((unsigned int) k >= (unsigned int) b_len) { acc_raise(err, 3, k); return; }
                if ((unsigned int) j >= (unsigned int) b[k].length) { acc_raise(err, 4, acc_at(k, j)); return; }
                s = s + a[v6_row].data[k] * b[k].data[j];
            }
            /* Nests.java:89 */
            if ((unsigned int) v5_row >= (unsigned int) c_len) { acc_raise(err, 5, v5_row); return; }
            if ((unsigned int) j >= (unsigned int) c[v5_row].length) { acc_raise(err, 6, acc_at(v5_row, j)); return; }
            c[v5_row].data[j] = s;
        }
    }
}
