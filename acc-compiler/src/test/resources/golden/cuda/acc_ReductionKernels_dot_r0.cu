// acc4j: kernel acc_ReductionKernels_dot_r0 as CUDA C, for reading
// org.acc4j.compiler.fixtures.ReductionKernels.dot, region 0 (loop at ReductionKernels.java:14)
// parallelizable: no loop-carried dependence; reduction(+:s) over the whole nest (line 15); Map1: block(128, 1, 1); i from blockIdx.x * blockDim.x + threadIdx.x by gridDim.x * blockDim.x
// mapping Map1: block (128, 1, 1), grid (ceil(trip(i) / 128) <= a full device, 1, 1)
//
// The same kernel as the PTX acc4j loads: the same name and parameters, the same checks and error
// record. Build: nvcc -arch=sm_90 -fmad=false -ptx acc_ReductionKernels_dot_r0.cu
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

/* reduction(+:s) over double: combines one value per thread of the grid into *result, in
   the order of ptx-templates' acc_reduce_add_f64 (so with the same bits): in each warp, lane i takes
   op(a[i], a[i + o]) for o = 16, 8, 4, 2, 1; warp 0 does the same over the warps' values; thread 0 stores
   the block's value; the last block to arrive folds the blocks' values (thread l: partials[l],
   partials[l + threads], ...) and runs the same tree. Every thread of every block calls it once. */
__device__ __forceinline__ double acc_combine_add_f64(double a, double b) {
    double c = __dadd_rn(a, b); /* rounded to nearest, never fused */
    return c != c ? __longlong_as_double(0x7ff8000000000000LL) : c; /* a NaN result is Java's canonical NaN */
}

/* The block's tree over the values of its threads 0..n-1; thread 0 gets the result. */
static __device__ double acc_block_tree_add_f64(double a, unsigned int n, double* slots) {
    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned int l = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned int lane = l & 31, warp = l >> 5;
    unsigned int present = min(threads - 32 * warp, 32u); /* a block need not be a multiple of 32 */
    unsigned int mask = present == 32 ? 0xffffffffu : (1u << present) - 1;
    int valid = min(max((int) n - (int) (32 * warp), 0), 32);
    for (unsigned int o = 16; o != 0; o >>= 1) {
        double other = __shfl_down_sync(mask, a, o);
        if ((int) (lane + o) < valid) a = acc_combine_add_f64(a, other);
    }
    if (lane == 0 && valid > 0) slots[warp] = a;
    __syncthreads();
    if (warp == 0) {
        unsigned int warps = (n + 31) / 32;
        if (lane < warps) a = slots[lane];
        for (unsigned int o = 16; o != 0; o >>= 1) {
            double other = __shfl_down_sync(mask, a, o);
            if (lane + o < warps) a = acc_combine_add_f64(a, other);
        }
    }
    return a;
}

static __device__ void acc_reduce_add_f64(double v, double* partials, unsigned int* counter, double* result) {
    __shared__ double slots[32];
    unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned int l = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned long long blocks = (unsigned long long) gridDim.x * gridDim.y * gridDim.z;
    unsigned long long b = blockIdx.x + (unsigned long long) gridDim.x * (blockIdx.y + (unsigned long long) gridDim.y * blockIdx.z);
    __syncthreads(); /* a reduction before this one may still be reading the slots */
    double a = acc_block_tree_add_f64(v, threads, slots);
    int last = 0;
    if (l == 0) {
        partials[b] = a;
        __threadfence();
        /* the blocks-th arrival is the last block; atomicInc wraps the counter to 0 there, for the next launch */
        last = atomicInc(counter, (unsigned int) (blocks - 1)) == (unsigned int) (blocks - 1);
    }
    if (!__syncthreads_or(last)) return;
    __threadfence();
    if (l < blocks) {
        a = __ldcg(&partials[l]);
        for (unsigned long long k = l + threads; k < blocks; k += threads) a = acc_combine_add_f64(a, __ldcg(&partials[k]));
    }
    a = acc_block_tree_add_f64(a, (unsigned int) min(blocks, (unsigned long long) threads), slots);
    if (l == 0) *result = a;
}

extern "C" __global__ void acc_ReductionKernels_dot_r0(
    acc_error* err,
    const double* a,  /* double[] a, read only */
    int a_len,
    const double* b,  /* double[] b, read only */
    int b_len,
    int n,
    double* s_result,  /* reduction(+:s): the grid's value */
    unsigned int* s_counter,  /* blocks arrived (0 between launches) */
    double* s_partials  /* one value per block */
)
{
    double s;
    int i;
    long long trip_i, t_i;

    /* ReductionKernels.java:13 */
    s = 0.0;
    /* ReductionKernels.java:15  reduction(+:s): this thread's private accumulator starts at the identity; the host
       combines the grid's value with s's value before the loop */
    s = -0.0;
    /* ReductionKernels.java:14 */
    /* for i: parallelizable */
    trip_i = acc_trip_lt(0, n, 1);
    for (t_i = (long long) blockIdx.x * blockDim.x + threadIdx.x; t_i < trip_i; t_i += (long long) gridDim.x * blockDim.x) {
        i = (int) t_i;
        /* ReductionKernels.java:15 */
        if ((unsigned int) i >= (unsigned int) a_len) { acc_raise(err, 1, i); goto acc_exit; }
        if ((unsigned int) i >= (unsigned int) b_len) { acc_raise(err, 2, i); goto acc_exit; }
        s = s + a[i] * b[i];
    }
acc_exit:
    /* ReductionKernels.java:15  reduction(+:s): combined over the grid; every thread of the block gets here, whether it
       ran iterations or stopped at an error */
    acc_reduce_add_f64(s, s_partials, s_counter, s_result);
}
