#!/usr/bin/env python3
"""Whether a store kernel whose rows leave their end sectors partly written gains from completing those sectors with
the values already there (a load and a store of the same element), for the Laplacian and the wave at 512^2 x 64.

Variants, one point per thread, blocks 64x2x2 with the x threads aligned to the row start:
  plain   threads past the interior do nothing (Java's writes only)
  wb      threads at the row ends of an interior (m, s) load b[c] and store it back (same bits)
  zero    threads at the row ends store 0 (a diagnostic only: not Java's result)
Against CuPy's copy of 8192^2 doubles in the same process; interleaved rounds, medians of CUDA-event times.
"""
import os, sys
import cupy as cp
import numpy as np

OUT = os.environ.get("OUT", "/tmp/sector-probe")
os.makedirs(OUT, exist_ok=True)
ROUNDS = int(os.environ.get("ROUNDS", "7"))
REPS = 20

SRC = r'''
extern "C" __global__ void K(const double* a, double* b, const double* w0, int nf, int nm, int ns, int R,
                             double P0, double P1, double P2, int mode) {
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y + R;
  int s = blockIdx.z * blockDim.z + threadIdx.z + R;
  if (f >= nf || m >= nm - R || s >= ns - R) return;
  int c = (s * nm + m) * nf + f;
  if (f < R || f >= nf - R) {
    if (mode == 1) { double v = b[c]; asm volatile("st.global.f64 [%0], %1;" :: "l"(b + c), "d"(v)); }
    else if (mode == 2) { asm volatile("st.global.f64 [%0], %1;" :: "l"(b + c), "d"(0.0)); }
    return;
  }
  int P = nm * nf;
  double r;
  if (R == 1) {
    r = P0 * (a[c-1] - 2.0 * a[c] + a[c+1]) + P1 * (a[c-nf] - 2.0 * a[c] + a[c+nf]) + P2 * (a[c-P] - 2.0 * a[c] + a[c+P]);
  } else {
    r = P0 * a[c] - w0[c] + P1 * (a[c-1] + a[c+1] + a[c-nf] + a[c+nf] + a[c-P] + a[c+P])
        + P2 * (a[c-2] + a[c+2] + a[c-2*nf] + a[c+2*nf] + a[c-2*P] + a[c+2*P]);
  }
  b[c] = r;
}
'''
mod = cp.RawModule(code=SRC, options=("--fmad=false",))
K = mod.get_function("K")


def timed(fn):
    for _ in range(3):
        fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(REPS):
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort()
    return ts[len(ts) // 2]


ca = cp.random.random(8192 * 8192); cb = cp.empty_like(ca)
copy_bytes = 2 * 8 * 8192 * 8192

out = []
def say(s):
    print(s); out.append(s); sys.stdout.flush()

say(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
for name, R, nf, nm, ns in [("laplacian", 1, 64, 512, 512), ("wave13pt", 2, 64, 512, 512),
                             ("laplacian", 1, 256, 256, 256)]:
    n = nf * nm * ns
    rng = np.random.default_rng(7)
    a = cp.asarray(rng.random(n)); w0 = cp.asarray(rng.random(n))
    b0 = cp.asarray(rng.random(n))
    narr = 1 if R == 1 else 2
    work = 8 * (narr + 1) * (nf - 2 * R) * (nm - 2 * R) * (ns - 2 * R)
    P = (0.3, 0.2, 0.1) if R == 1 else (1.25, 0.4 / 3, -0.1 / 12)
    grid = ((nf + 63) // 64, (nm - 2 * R + 1) // 2, (ns - 2 * R + 1) // 2)
    outs = {}
    for mode in range(3):
        b = b0.copy()
        K(grid, (64, 2, 2), (a, b, w0, np.int32(nf), np.int32(nm), np.int32(ns), np.int32(R), np.float64(P[0]),
                             np.float64(P[1]), np.float64(P[2]), np.int32(mode)))
        outs[mode] = b
    same = bool(cp.all(outs[0] == outs[1]))
    say(f"{name} {nf}x{nm}x{ns}: wb result equals plain bit for bit: {same}")
    ratios = {0: [], 1: [], 2: []}
    for rnd in range(ROUNDS):
        tc = timed(lambda: cp.copyto(cb, ca))
        copy_gbs = copy_bytes / tc / 1e6
        for mode in range(3):
            b = outs[mode]
            t = timed(lambda: K(grid, (64, 2, 2), (a, b, w0, np.int32(nf), np.int32(nm), np.int32(ns), np.int32(R),
                                                   np.float64(P[0]), np.float64(P[1]), np.float64(P[2]),
                                                   np.int32(mode))))
            ratios[mode].append(work / t / 1e6 / copy_gbs)
    for mode, label in [(0, "plain"), (1, "wb"), (2, "zero")]:
        r = sorted(ratios[mode])
        say(f"  {label:6s} ratio to copy median {r[len(r)//2]:.3f} [min {r[0]:.3f}, max {r[-1]:.3f}]")
open(os.path.join(OUT, "sector-probe.txt"), "w").write("\n".join(out) + "\n")
