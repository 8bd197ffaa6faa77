// The native ceiling of a staged copy on this host: what the runtime's transfer pipeline does, written in C.
// A pageable buffer is copied by N threads into a ring of pinned slots (plain memcpy, or AVX non-temporal stores),
// each chunk sent with cuMemcpyHtoDAsync as soon as its last piece is written, on 1 or 2 streams, while the threads
// copy the next chunks; the reverse: cuMemcpyDtoHAsync into the slots, the threads copy each landed chunk out.
// The threads spin (no wake-up latency); the calling thread is thread 0: it copies its piece and issues the copies.
// Each variant is timed in rounds interleaved with a plain pinned cuMemcpyHtoD/DtoH of the same size in the same
// process; a row prints the median ratio to pinned (staged rate / pinned rate) with its 25th and 75th percentiles.
//
// Build: gcc -O3 -march=native -mavx2 -mclflushopt -mclwb -pthread -I$CUDA/include -o xfer-native scripts/xfer-native.c -L$CUDA/lib64/stubs -lcuda
// Run:   ./xfer-native [--sizes 8,16,32,64,256] [--threads 4,8,12,16] [--chunks 512,1024,2048,4096] (KiB)
//                      [--streams 1,2] [--stores plain,nt,clwb,callerclwb] [--sources hot,cold] [--dirs h2d,d2h] [--slots 4]
//                      [--rounds 7] [--pin 0|1]
#define _GNU_SOURCE
#include <cuda.h>
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *s_ = 0; cuGetErrorString(r_, &s_); \
    fprintf(stderr, "%s failed: %s (line %d)\n", #call, s_ ? s_ : "?", __LINE__); exit(2); } } while (0)

#define MAXT 32
#define MAXCHUNKS 8192
#define MAXSLOTS 64

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

// one copy's job, read by the threads; written by thread 0 before `epoch` moves
typedef struct {
    int dir;            // 0: host to device, 1: device to host
    int nt;             // stores: 0 plain, 1 non-temporal, 2 plain then CLWB by the writer, 3 plain then CLWB of the
                        // whole chunk by thread 0 before its device copy (h2d; d2h treats 2 and 3 as plain)
    int threads;
    int slots;
    size_t chunk;
    size_t bytes;
    int nchunks;
    char *host;         // pageable source (h2d) or destination (d2h)
    char *ring;         // pinned slots, slots * chunk
} Job;

static Job job;
static _Atomic int epoch;                 // a new job for the threads
static _Atomic int quit;
static _Atomic int writable;              // h2d: chunks < writable have a free slot
static _Atomic int landed;                // d2h: chunks < landed are in their slot
static _Atomic int done[MAXCHUNKS];       // pieces written of each chunk
static _Atomic int finished;              // threads done with the current job
static CUcontext ctx;
static int pin_threads;

static void copy_nt(char *dst, const char *src, size_t n) {
    // 32-byte aligned destination (slots and the pageable buffer are page aligned, pieces multiples of 64 bytes)
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        __m256d a = _mm256_loadu_pd((const double *) (src + i));
        __m256d b = _mm256_loadu_pd((const double *) (src + i + 32));
        __m256d c = _mm256_loadu_pd((const double *) (src + i + 64));
        __m256d d = _mm256_loadu_pd((const double *) (src + i + 96));
        _mm256_stream_pd((double *) (dst + i), a);
        _mm256_stream_pd((double *) (dst + i + 32), b);
        _mm256_stream_pd((double *) (dst + i + 64), c);
        _mm256_stream_pd((double *) (dst + i + 96), d);
    }
    if (i < n) memcpy(dst + i, src + i, n - i);
    _mm_sfence();
}

static void writeback(char *p, size_t n) {
    for (size_t i = 0; i < n; i += 64) _mm_clwb(p + i);
    _mm_sfence();
}

static void piece_of(int chunk, int t, size_t *off, size_t *len) {
    size_t base = (size_t) chunk * job.chunk;
    size_t n = job.bytes - base < job.chunk ? job.bytes - base : job.chunk;
    size_t per = ((n + job.threads - 1) / job.threads + 63) & ~(size_t) 63;
    size_t a = (size_t) t * per, b = a + per;
    if (a > n) a = n;
    if (b > n) b = n;
    *off = a;
    *len = b - a;
}

static void copy_piece(int c, int t) {
    size_t off, len;
    piece_of(c, t, &off, &len);
    if (len) {
        char *slot = job.ring + (size_t) (c % job.slots) * job.chunk + off;
        char *host = job.host + (size_t) c * job.chunk + off;
        char *dst = job.dir == 0 ? slot : host;
        const char *src = job.dir == 0 ? host : slot;
        if (job.nt == 1) copy_nt(dst, src, len); else memcpy(dst, src, len);
        if (job.nt == 2 && job.dir == 0) writeback(dst, len);
    }
    atomic_fetch_add_explicit(&done[c], 1, memory_order_release);
}

// the piece of thread t of every chunk, in order, each once its slot is free (h2d) or its data landed (d2h)
static void run_pieces(int t) {
    for (int c = 0; c < job.nchunks; c++) {
        _Atomic int *gate = job.dir == 0 ? &writable : &landed;
        while (atomic_load_explicit(gate, memory_order_acquire) <= c) _mm_pause();
        copy_piece(c, t);
    }
}

static void *worker(void *arg) {
    int t = (int) (intptr_t) arg;
    if (pin_threads) {
        cpu_set_t s; CPU_ZERO(&s); CPU_SET(t % sysconf(_SC_NPROCESSORS_ONLN), &s);
        pthread_setaffinity_np(pthread_self(), sizeof s, &s);
    }
    int seen = 0;
    for (;;) {
        int e;
        while ((e = atomic_load_explicit(&epoch, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&quit, memory_order_relaxed)) return 0;
            _mm_pause();
        }
        seen = e;
        if (t < job.threads) run_pieces(t);
        atomic_fetch_add_explicit(&finished, 1, memory_order_release);
    }
}

static CUstream streams[2];
static double queue_seconds;   // time inside the calls that queue a device copy and record its event
static long queue_calls;
static CUevent events[MAXSLOTS];

// one staged copy of job.bytes between job.host and dev; thread 0 is the caller
static void staged(CUdeviceptr dev, int nstreams, int pool) {
    for (int c = 0; c < job.nchunks; c++) atomic_store_explicit(&done[c], 0, memory_order_relaxed);
    atomic_store(&finished, 0);
    int T = job.threads, S = job.slots, n = job.nchunks;
    if (job.dir == 0) {
        atomic_store(&writable, S < n ? S : n);
        atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
        int issued = 0, retired = 0, mine = 0;
        while (retired < n) {
            if (issued < n && atomic_load_explicit(&done[issued], memory_order_acquire) == T) {
                size_t off = (size_t) issued * job.chunk;
                size_t len = job.bytes - off < job.chunk ? job.bytes - off : job.chunk;
                CUstream s = streams[issued % nstreams];
                if (job.nt == 3) writeback(job.ring + (size_t) (issued % S) * job.chunk, len);
                double q0 = now();
                CK(cuMemcpyHtoDAsync(dev + off, job.ring + (size_t) (issued % S) * job.chunk, len, s));
                CK(cuEventRecord(events[issued % S], s));
                queue_seconds += now() - q0;
                queue_calls++;
                issued++;
            } else if (retired < issued && cuEventQuery(events[retired % S]) == CUDA_SUCCESS) {
                retired++;
                int w = retired + S < n ? retired + S : n;
                atomic_store_explicit(&writable, w, memory_order_release);
            } else if (mine < n && atomic_load_explicit(&writable, memory_order_acquire) > mine) {
                copy_piece(mine++, 0);
            } else {
                _mm_pause();
            }
        }
    } else {
        atomic_store(&landed, 0);
        atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
        int issued = 0, arrived = 0, emptied = 0, mine = 0;
        while (emptied < n) {
            if (issued < n && issued < emptied + S) {
                size_t off = (size_t) issued * job.chunk;
                size_t len = job.bytes - off < job.chunk ? job.bytes - off : job.chunk;
                CUstream s = streams[issued % nstreams];
                double q0 = now();
                CK(cuMemcpyDtoHAsync(job.ring + (size_t) (issued % S) * job.chunk, dev + off, len, s));
                CK(cuEventRecord(events[issued % S], s));
                queue_seconds += now() - q0;
                queue_calls++;
                issued++;
            } else if (arrived < issued && cuEventQuery(events[arrived % S]) == CUDA_SUCCESS) {
                arrived++;
                atomic_store_explicit(&landed, arrived, memory_order_release);
            } else if (atomic_load_explicit(&done[emptied], memory_order_acquire) == T) {
                emptied++;
            } else if (mine < arrived) {
                copy_piece(mine++, 0);
            } else {
                _mm_pause();
            }
        }
    }
    // the helpers leave the job before the next one is published
    while (atomic_load_explicit(&finished, memory_order_acquire) < pool) _mm_pause();
}

static void flush_range(char *p, size_t n) {
    for (size_t i = 0; i < n; i += 64) _mm_clflushopt(p + i);
    _mm_sfence();
}

static void warm_range(char *p, size_t n, int salt) {
    // one thread writes the buffer: its lines are then in the caches, dirty
    uint64_t *q = (uint64_t *) p;
    for (size_t i = 0; i < n / 8; i++) q[i] = i * 2654435761u + salt;
}

static const char *store_name[] = {"plain", "nt", "clwb", "callerclwb"};

static int cmpd(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static int parse_list(const char *s, long *out, int max) {
    int n = 0;
    char *copy = strdup(s), *save = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && n < max; tok = strtok_r(0, ",", &save)) {
        if (!strcmp(tok, "plain") || !strcmp(tok, "hot") || !strcmp(tok, "h2d")) out[n++] = 0;
        else if (!strcmp(tok, "nt") || !strcmp(tok, "cold") || !strcmp(tok, "d2h")) out[n++] = 1;
        else if (!strcmp(tok, "clwb")) out[n++] = 2;
        else if (!strcmp(tok, "callerclwb")) out[n++] = 3;
        else out[n++] = atol(tok);
    }
    free(copy);
    return n;
}

int main(int argc, char **argv) {
    long sizes[16], threads[16], chunks[16], nstr[4], stores[4], sources[4], dirs[4];
    int ns = parse_list("8,16,32,64,256", sizes, 16), nt = parse_list("4,8,12,16", threads, 16);
    int nc = parse_list("512,1024,2048,4096", chunks, 16), nn = parse_list("1,2", nstr, 4);
    int nst = parse_list("plain,nt", stores, 4), nsrc = parse_list("hot,cold", sources, 4);
    int nd = parse_list("h2d,d2h", dirs, 4);
    int slots = 4, rounds = 7, hostonly = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--sizes")) ns = parse_list(v, sizes, 16);
        else if (!strcmp(k, "--threads")) nt = parse_list(v, threads, 16);
        else if (!strcmp(k, "--chunks")) nc = parse_list(v, chunks, 16);
        else if (!strcmp(k, "--streams")) nn = parse_list(v, nstr, 4);
        else if (!strcmp(k, "--stores")) nst = parse_list(v, stores, 4);
        else if (!strcmp(k, "--sources")) nsrc = parse_list(v, sources, 4);
        else if (!strcmp(k, "--dirs")) nd = parse_list(v, dirs, 4);
        else if (!strcmp(k, "--slots")) slots = atoi(v);
        else if (!strcmp(k, "--rounds")) rounds = atoi(v);
        else if (!strcmp(k, "--pin")) pin_threads = atoi(v);
        else if (!strcmp(k, "--hostonly")) hostonly = atoi(v);
        else { fprintf(stderr, "unknown option %s\n", k); return 1; }
    }
    if (slots > MAXSLOTS) slots = MAXSLOTS;
    if (rounds > 63) rounds = 63;
    CK(cuInit(0));
    CUdevice d;
    CK(cuDeviceGet(&d, 0));
    char name[256];
    CK(cuDeviceGetName(name, sizeof name, d));
    CK(cuDevicePrimaryCtxRetain(&ctx, d));
    CK(cuCtxSetCurrent(ctx));
    for (int i = 0; i < 2; i++) CK(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < MAXSLOTS; i++) CK(cuEventCreate(&events[i], CU_EVENT_DISABLE_TIMING));
    size_t maxbytes = 0, maxchunk = 0;
    long maxthreads = 1;
    for (int i = 0; i < ns; i++) if ((size_t) sizes[i] << 20 > maxbytes) maxbytes = (size_t) sizes[i] << 20;
    for (int i = 0; i < nc; i++) if ((size_t) chunks[i] << 10 > maxchunk) maxchunk = (size_t) chunks[i] << 10;
    for (int i = 0; i < nt; i++) if (threads[i] > maxthreads) maxthreads = threads[i];
    if (maxthreads > MAXT) maxthreads = MAXT;
    char *host = (char *) aligned_alloc(4096, maxbytes);
    memset(host, 1, maxbytes);
    void *ringp, *pinnedp;
    CK(cuMemHostAlloc(&ringp, (size_t) slots * maxchunk, 0));
    CK(cuMemHostAlloc(&pinnedp, maxbytes, 0));
    memset(ringp, 2, (size_t) slots * maxchunk);
    memset(pinnedp, 3, maxbytes);
    CUdeviceptr dev;
    CK(cuMemAlloc(&dev, maxbytes));
    CK(cuMemsetD8(dev, 4, maxbytes));
    printf("device %s; host %ld cores online; pageable buffer %zu MiB; %d slots; %d rounds; threads pinned %d\n",
           name, sysconf(_SC_NPROCESSORS_ONLN), maxbytes >> 20, slots, rounds, pin_threads);
    // helpers 1..maxthreads-1 spin for the whole run
    int pool = (int) maxthreads - 1;
    pthread_t tid[MAXT];
    for (int t = 1; t <= pool; t++) pthread_create(&tid[t], 0, worker, (void *) (intptr_t) t);

    // correctness: one staged copy each way, checked byte for byte
    {
        size_t b = 8u << 20;
        job = (Job) {0, 0, (int) maxthreads, slots, 1u << 20, b, 8, host, (char *) ringp};
        for (size_t i = 0; i < b; i++) host[i] = (char) (i * 7 + 1);
        staged(dev, 2, pool);
        CK(cuCtxSynchronize());
        CK(cuMemcpyDtoH(pinnedp, dev, b));
        int bad = memcmp(pinnedp, host, b) != 0;
        memset(host, 0, b);
        job.dir = 1;
        job.nt = 1;
        staged(dev, 2, pool);
        bad |= memcmp(pinnedp, host, b) != 0;
        printf("check: staged copies each way of 8 MiB %s\n", bad ? "DIFFER from the source" : "equal the source");
        memset(host, 1, maxbytes);
    }

    if (hostonly) {
        // the host's half alone: pageable to slots, no DMA (the slots recycled at once), hot source
        printf("\nhost half alone (GB/s, pageable to the slots, no DMA), hot source\n| MiB | threads | chunk KiB | plain | nt |\n");
        for (int si = 0; si < ns; si++) for (int ti = 0; ti < nt; ti++) {
            size_t b = (size_t) sizes[si] << 20;
            size_t ch = 1u << 20;
            double r[2];
            for (int st = 0; st < 2; st++) {
                double best[64];
                for (int k = 0; k < rounds; k++) {
                    job = (Job) {0, st, (int) threads[ti], slots, ch, b, (int) ((b + ch - 1) / ch), host, (char *) ringp};
                    for (int c = 0; c < job.nchunks; c++) atomic_store(&done[c], 0);
                    atomic_store(&finished, 0);
                    atomic_store(&writable, job.nchunks);  // no slot gate: the ring is overwritten in turn
                    warm_range(host, b, k);
                    double t0 = now();
                    atomic_fetch_add_explicit(&epoch, 1, memory_order_release);
                    run_pieces(0);
                    for (int c = 0; c < job.nchunks; c++) while (atomic_load(&done[c]) < job.threads) _mm_pause();
                    best[k] = now() - t0;
                    while (atomic_load(&finished) < pool) _mm_pause();
                }
                qsort(best, rounds, sizeof(double), cmpd);
                r[st] = b / best[rounds / 2] / 1e9;
            }
            printf("| %ld | %ld | %zu | %.1f | %.1f |\n", sizes[si], threads[ti], ch >> 10, r[0], r[1]);
        }
    }

    printf("\nstaged against pinned, paired rounds: ratio = staged rate / pinned rate, median [p25, p75]\n");
    printf("| dir | MiB | threads | chunk KiB | streams | stores | host buffer | pinned GB/s | staged GB/s | ratio | p25 | p75 | queue us |\n");
    for (int di = 0; di < nd; di++) for (int si = 0; si < ns; si++) for (int src = 0; src < nsrc; src++)
    for (int sti = 0; sti < nst; sti++) for (int ti = 0; ti < nt; ti++) for (int ci = 0; ci < nc; ci++)
    for (int ni = 0; ni < nn; ni++) {
        size_t b = (size_t) sizes[si] << 20, ch = (size_t) chunks[ci] << 10;
        if (ch > b) continue;
        int dir = (int) dirs[di];
        double ratio[64], pr[64], sr[64];
        queue_seconds = 0;
        queue_calls = 0;
        for (int k = 0; k < rounds; k++) {
            job = (Job) {dir, (int) stores[sti], (int) threads[ti], slots, ch, b, (int) ((b + ch - 1) / ch), host,
                         (char *) ringp};
            if (job.nchunks > MAXCHUNKS) { fprintf(stderr, "too many chunks\n"); return 1; }
            // host buffer hot (just written by this thread) or cold (flushed from the caches)
            if (sources[src] == 0) warm_range(host, b, k); else { warm_range(host, b, k); flush_range(host, b); }
            double t0 = now();
            staged(dev, (int) nstr[ni], pool);
            if (dir == 0) { CK(cuStreamSynchronize(streams[0])); CK(cuStreamSynchronize(streams[1])); }
            double ts = now() - t0;
            double t1 = now();
            if (dir == 0) CK(cuMemcpyHtoD(dev, pinnedp, b)); else CK(cuMemcpyDtoH(pinnedp, dev, b));
            double tp = now() - t1;
            pr[k] = b / tp / 1e9;
            sr[k] = b / ts / 1e9;
            ratio[k] = tp / ts;
        }
        qsort(ratio, rounds, sizeof(double), cmpd);
        qsort(pr, rounds, sizeof(double), cmpd);
        qsort(sr, rounds, sizeof(double), cmpd);
        printf("| %s | %ld | %ld | %zu | %ld | %s | %s | %.1f | %.1f | %.2f | %.2f | %.2f | %.1f |\n", dir ? "d2h" : "h2d",
               sizes[si], threads[ti], ch >> 10, nstr[ni], store_name[stores[sti]], sources[src] ? "cold" : "hot",
               pr[rounds / 2], sr[rounds / 2], ratio[rounds / 2], ratio[rounds / 4], ratio[(3 * rounds) / 4],
               queue_calls ? queue_seconds / queue_calls * 1e6 : 0.0);
        fflush(stdout);
    }
    atomic_store(&quit, 1);
    for (int t = 1; t <= pool; t++) pthread_join(tid[t], 0);
    return 0;
}
