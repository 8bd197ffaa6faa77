// acc4j: kernel acc_NarrowKernels_upper2D_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.NarrowKernels.upper2D, region 0 (loop at NarrowKernels.java:143)
// parallel: mapped by the user; Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (128, 1, 1), grid (ceil(trip(i) / 128) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_NarrowKernels_upper2D_r0.cu
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

/* A row of a Java boolean[][] on the device, as acc4j's row table holds it: its elements and its
   length (16 bytes). */
typedef struct { unsigned char* data; int length; } acc_row_boolean;

/* A row of a Java char[][] on the device, as acc4j's row table holds it: its elements and its
   length (16 bytes). */
typedef struct { unsigned short* data; int length; } acc_row_char;

/* The iterations of for (x = lo; x < ub; x += step), step > 0, in 64 bits so that no index
   overflows; 0 when the loop does not run. */
__device__ __forceinline__ long long acc_trip_lt(long long lo, long long ub, long long step) {
    long long d = ub - lo;
    return d > 0 ? (d + step - 1) / step : 0;
}

extern "C" __global__ void acc_NarrowKernels_upper2D_r0(
    acc_error* err,
    const acc_row_char* c,  /* char[][] c, read only */
    int c_len,  /* rows */
    unsigned long long c_block,  /* the rows' block when they are one, else 0; this rendering reads every row from the table */
    int c_pitch,  /* the row length when the rows are one block, else -1 */
    const acc_row_boolean* upper,  /* boolean[][] upper, written */
    int upper_len,  /* rows */
    unsigned long long upper_block,  /* the rows' block when they are one, else 0; this rendering reads every row from the table */
    int upper_pitch,  /* the row length when the rows are one block, else -1 */
    int rows
)
{
    int i, v4_row, j, stack0, stack1, stack2;
    long long trip_i, t_i;

    /* NarrowKernels.java:143 */
    /* for i: mapped by the user @Loop(gang, vector=128) */
    trip_i = acc_trip_lt(0, rows, 1);
    for (t_i = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_i < trip_i; t_i += (long long) gridDim.x * blockDim.x) {
        i = (int) t_i;
        /* NarrowKernels.java:144 */
        v4_row = i;
        /* NarrowKernels.java:145 -- sequential in each thread */
        j = 0;
        for (;;) {
            if ((unsigned int) v4_row >= (unsigned int) c_len) { acc_raise(err, 1, v4_row); return; }
            if (!(j < c[v4_row].length)) break;
            /* NarrowKernels.java:146 */
            stack0 = i;
            stack1 = j;
            if ((unsigned int) v4_row >= (unsigned int) c_len) { acc_raise(err, 2, v4_row); return; }
            if ((unsigned int) j >= (unsigned int) c[v4_row].length) { acc_raise(err, 3, acc_at(v4_row, j)); return; }
            if (c[v4_row].data[j] >= 65) {
                if ((unsigned int) v4_row >= (unsigned int) c_len) { acc_raise(err, 4, v4_row); return; }
                if ((unsigned int) j >= (unsigned int) c[v4_row].length) { acc_raise(err, 5, acc_at(v4_row, j)); return; }
                if (c[v4_row].data[j] <= 90) {
                    stack2 = 1;
                } else {
                    stack2 = 0;
                }
            } else {
                stack2 = 0;
            }
            if ((unsigned int) stack0 >= (unsigned int) upper_len) { acc_raise(err, 6, stack0); return; }
            if ((unsigned int) stack1 >= (unsigned int) upper[stack0].length) { acc_raise(err, 7, acc_at(stack0, stack1)); return; }
            upper[stack0].data[stack1] = stack2 & 1;
            j++;
        }
    }
}
