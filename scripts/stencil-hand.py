#!/usr/bin/env python3
"""Hand-written CUDA for the three 3D stencil samples (Stencil, Laplacian, Wave13pt) at the JMH sizes, in several
structures, against the device copy of the same byte count timed in the same process: the ceiling a compiler's
kernel of the same nest can hope to reach on this GPU.

Every kernel works in (f, m, s) coordinates: f the stride-1 dimension, m the middle one, s the outermost one
(Stencil: f = x, m = y, s = z, as a[(k*ny + j)*nx + i]; Laplacian and Wave13pt: f = z, m = y, s = x, as
a[(i*ny + j)*nz + k]). The arithmetic is the samples' Java expression, in Java's order, compiled with --fmad=false,
so every structure's result equals the one-point-per-thread kernel's bit for bit (checked before timing).

Structures:
  pt      one point per thread, a 3D grid of blocks (bx, by, bz) over (f, m, s)
  march   a 2D grid of blocks (bx, by) over (f, m) and a third grid dimension of chunks along s: each thread walks
          CHUNK planes of its column, the column's 2R+1 values in registers (one new load per plane), the unrolled
          loop (u1, u2, u4) putting the loads of the next planes in flight early
Axes: index arithmetic in 32 or 64 bits (i32, i64); loads plain (no restrict: the stores may alias the loads, as in a
compiler that cannot prove otherwise), restrict (const __restrict__: ld.global.nc, reordered freely), or ldg
(__ldg without restrict).

Output (stdout and $OUT): copy figures, then per stencil and size the best rows and chosen reference rows, each with
ms, GB/s (the benchmarks' byte count: one read per input array and one write per interior point), the ratio to
the same-byte copy and to the 8192^2 copy, registers and local (spill) bytes; all rows in $OUT/hand-all.csv.
Times are medians of 20 launches over CUDA events after 3 warm-up launches.
"""
import os
import sys
import time

OUT = os.environ.get("OUT", "/tmp/stencil-hand")
os.makedirs(OUT, exist_ok=True)
REPS = int(os.environ.get("HAND_REPS", "20"))
BUDGET = float(os.environ.get("HAND_BUDGET_S", "200"))
T0 = time.time()


def bench(fn, reps=REPS, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort()
    return ts[len(ts) // 2]


# stencil name -> (radius, input arrays, expression over A(df, dm, ds) = input a (or w1) at the offset, W0 = w0[c],
# P0..P2 the scalar coefficients), written in the Java samples' order of operations
STENCILS = {
    "stencil": (1, 1, "P0 * A(0,0,0) + P1 * (A(-1,0,0) + A(1,0,0) + A(0,-1,0) + A(0,1,0) + A(0,0,-1) + A(0,0,1))"),
    "laplacian": (1, 1, "P0 * (A(0,0,-1) - 2.0 * A(0,0,0) + A(0,0,1)) + P1 * (A(0,-1,0) - 2.0 * A(0,0,0) + A(0,1,0))"
                        " + P2 * (A(-1,0,0) - 2.0 * A(0,0,0) + A(1,0,0))"),
    "wave13pt": (2, 2, "P0 * A(0,0,0) - W0 + P1 * (A(-1,0,0) + A(1,0,0) + A(0,-1,0) + A(0,1,0) + A(0,0,-1) + A(0,0,1))"
                       " + P2 * (A(-2,0,0) + A(2,0,0) + A(0,-2,0) + A(0,2,0) + A(0,0,-2) + A(0,0,2))"),
}
# the samples' parameters: (nx, ny, nz) of the JMH size -> (nf, nm, ns)
LAYOUT = {"stencil": lambda x, y, z: (x, y, z), "laplacian": lambda x, y, z: (z, y, x),
          "wave13pt": lambda x, y, z: (z, y, x)}
SIZES = [(512, 512, 64), (256, 256, 256)]
COEF = {"stencil": (0.4, 0.1, 0.0), "laplacian": (0.3, 0.2, 0.1), "wave13pt": (1.25, 0.4 / 3, -0.1 / 12)}

MODES = {
    "plain": ("", "(P)[0]"),
    "restrict": ("__restrict__", "(P)[0]"),
    "ldg": ("", "__ldg(P)"),
}


def expr_point(name, r):
    """The expression with A(df,dm,ds) as loads around c."""
    return STENCILS[name][2]


def gen_pt(name, idx, mode):
    r, narr, e = STENCILS[name]
    q, ld = MODES[mode]
    kname = f"{name}_pt_{idx}_{mode}"
    it = "int" if idx == "i32" else "long long"
    src = f"""
extern "C" __global__ void {kname}(const double* {q} w0, const double* {q} a, double* {q} b, int nf, int nm, int ns,
    double P0, double P1, double P2) {{
  int f = blockIdx.x * blockDim.x + threadIdx.x + {r};
  int m = blockIdx.y * blockDim.y + threadIdx.y + {r};
  int s = blockIdx.z * blockDim.z + threadIdx.z + {r};
  if (f >= nf - {r} || m >= nm - {r} || s >= ns - {r}) return;
  {it} SM = nf; {it} SS = ({it}) nf * nm;
  {it} c = (({it}) s * nm + m) * nf + f;
#define LD(P) {ld.replace('P', '(P)')}
#define A(df, dm, ds) LD(a + c + (df) + (dm) * SM + (ds) * SS)
#define W0 LD(w0 + c)
  b[c] = {e};
#undef A
#undef W0
#undef LD
}}
"""
    return kname, src


def gen_march(name, idx, mode, unroll, chunk=None):
    """Marched along s: the column's 2R+1 values of a in registers v_{-R}..v_{R}; chunk a runtime parameter unless
    given (then a compile-time constant, fully unrolled)."""
    r, narr, e = STENCILS[name]
    q, ld = MODES[mode]
    it = "int" if idx == "i32" else "long long"
    kname = f"{name}_march_{idx}_{mode}_u{unroll}" + (f"_c{chunk}" if chunk else "")
    vs = [f"v{'m' if d < 0 else 'p'}{abs(d)}" for d in range(-r, r + 1)]  # vm2 vm1 vp0 vp1 vp2

    def a_sub(m):
        df, dm, ds = (int(t) for t in m.group(1).split(","))
        if df == 0 and dm == 0:
            return vs[ds + r]
        return f"LD(a + c + ({df}) + ({dm}) * SM)"
    import re
    body = re.sub(r"A\(([-0-9]+,[-0-9]+,[-0-9]+)\)", a_sub, e)
    pre = "\n  ".join(f"double {vs[i]} = LD(a + c + ({i - r}) * SS);" for i in range(2 * r))
    shift = " ".join(f"{vs[i]} = {vs[i + 1]};" for i in range(2 * r))
    loop = "CHUNK" if chunk else "chunk"
    pr = f"#pragma unroll {unroll}" if not chunk else "#pragma unroll"
    src = f"""
extern "C" __global__ void {kname}(const double* {q} w0, const double* {q} a, double* {q} b, int nf, int nm, int ns,
    double P0, double P1, double P2, int chunk) {{
  const int CHUNK = {chunk or 0};
  int f = blockIdx.x * blockDim.x + threadIdx.x + {r};
  int m = blockIdx.y * blockDim.y + threadIdx.y + {r};
  int s0 = blockIdx.z * {loop} + {r};
  if (f >= nf - {r} || m >= nm - {r}) return;
  int n = min({loop}, ns - {r} - s0);
  {it} SM = nf; {it} SS = ({it}) nf * nm;
  {it} c = (({it}) s0 * nm + m) * nf + f;
#define LD(P) {ld.replace('P', '(P)')}
  {pre}
  double {vs[-1]};
  if (n == {loop}) {{
    {pr}
    for (int t = 0; t < {loop}; t++) {{
      {vs[-1]} = LD(a + c + {r} * SS);
      b[c] = {body.replace('W0', 'LD(w0 + c)')};
      {shift}
      c += SS;
    }}
  }} else {{
    for (int t = 0; t < n; t++) {{
      {vs[-1]} = LD(a + c + {r} * SS);
      b[c] = {body.replace('W0', 'LD(w0 + c)')};
      {shift}
      c += SS;
    }}
  }}
#undef LD
}}
"""
    return kname, src


def main():
    kernels = {}
    srcs = []
    for name in STENCILS:
        for idx in ("i32", "i64"):
            for mode in MODES:
                k, s = gen_pt(name, idx, mode)
                kernels[k] = ("pt", name, idx, mode, 0, 0)
                srcs.append(s)
                for u in (1, 2, 4):
                    k, s = gen_march(name, idx, mode, u)
                    kernels[k] = ("march", name, idx, mode, u, 0)
                    srcs.append(s)
        for c in (8, 16, 32):
            k, s = gen_march(name, "i32", "restrict", 0, c)
            kernels[k] = ("marchc", name, "i32", "restrict", 0, c)
            srcs.append(s)
    source = "\n".join(srcs)
    with open(os.path.join(OUT, "hand.cu"), "w") as fh:
        fh.write(source)
    if "--source" in sys.argv:  # only the CUDA source (for nvcc -ptx and ptxas -v on a machine without a GPU)
        return
    global cp, np
    import cupy as cp  # noqa: E402
    import numpy as np  # noqa: E402
    t = time.time()
    mod = cp.RawModule(code=source, options=("--fmad=false",))
    fns = {k: mod.get_function(k) for k in kernels}
    print(f"compiled {len(kernels)} kernels in {time.time() - t:.1f} s", flush=True)


    def attrs(fn):
        try:
            return fn.num_regs, fn.local_size_bytes
        except Exception:
            try:
                d = cp.cuda.driver
                return d.funcGetAttribute(4, fn.ptr), d.funcGetAttribute(3, fn.ptr)
            except Exception:
                return -1, -1


    print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
    N = 8192
    x = cp.random.rand(N * N)
    y = cp.empty_like(x)
    copy_big = bench(lambda: cp.copyto(y, x))
    big_gbs = 2 * 8 * N * N / copy_big / 1e6
    print(f"copy cupy f64 8192^2 {copy_big:9.3f} ms {big_gbs:10.1f} GB/s", flush=True)
    del x, y

    rows = []
    csv = open(os.path.join(OUT, "hand-all.csv"), "w")
    csv.write("stencil,size,structure,idx,mode,unroll,chunk,block,ms,gbs,of_copy_same,of_copy_8192,regs,local\n")
    PT_BLOCKS = [(32, 4, 2), (32, 8, 1), (64, 4, 1), (128, 2, 1), (32, 2, 4), (64, 2, 2), (256, 1, 1)]
    M_BLOCKS = [(32, 8), (32, 4), (64, 4), (64, 2), (128, 2), (32, 16), (256, 1)]
    CHUNKS = [8, 16, 32, 64]
    for name in STENCILS:
        r, narr, _ = STENCILS[name]
        for size in SIZES:
            if time.time() - T0 > BUDGET:
                print(f"budget spent: {name} {size} skipped", flush=True)
                continue
            nf, nm, ns = LAYOUT[name](*size)
            tot = nf * nm * ns
            rng = np.random.default_rng(764)
            a = cp.asarray(rng.random(tot))
            w0 = cp.asarray(rng.random(tot)) if narr == 2 else cp.zeros(1)
            b = cp.zeros(tot)
            pts = (nf - 2 * r) * (nm - 2 * r) * (ns - 2 * r)
            nbytes = (narr + 1) * 8 * pts
            # the ceiling: a copy of the same byte count (half read, half written)
            ncp = nbytes // 16
            cx = cp.random.rand(ncp)
            cy = cp.empty_like(cx)
            copy_same = bench(lambda: cp.copyto(cy, cx))
            same_gbs = nbytes / copy_same / 1e6
            del cx, cy
            p0, p1, p2 = (np.float64(v) for v in COEF[name])
            args = (w0, a, b, np.int32(nf), np.int32(nm), np.int32(ns), p0, p1, p2)
            # reference: pt i32 restrict (32,8,1)
            ref_fn = fns[f"{name}_pt_i32_restrict"]
            b.fill(0)
            gi = lambda n, d: (n - 2 * r + d - 1) // d
            ref_fn((gi(nf, 32), gi(nm, 8), gi(ns, 1)), (32, 8, 1), args)
            ref = b.copy()
            label = f"{name} {size[0]}x{size[1]}x{size[2]} (nf,nm,ns)=({nf},{nm},{ns})"
            print(f"== {label}: copy of {nbytes / 1e6:.1f} MB {copy_same:.4f} ms {same_gbs:.1f} GB/s", flush=True)
            mine = []
            for k, (st, kn, idx, mode, u, cc) in kernels.items():
                if kn != name:
                    continue
                fn = fns[k]
                regs, local = attrs(fn)
                if st == "pt":
                    confs = [(blk, None) for blk in PT_BLOCKS]
                elif st == "march":
                    confs = [(blk, ch) for blk in M_BLOCKS for ch in CHUNKS]
                else:
                    confs = [(blk, cc) for blk in ((32, 8), (64, 4), (32, 4))]
                for blk, ch in confs:
                    if st == "pt":
                        grid = (gi(nf, blk[0]), gi(nm, blk[1]), gi(ns, blk[2]))
                        block = blk
                        call = lambda: fn(grid, block, args)
                    else:
                        grid = (gi(nf, blk[0]), gi(nm, blk[1]), gi(ns, ch))
                        block = (blk[0], blk[1], 1)
                        cargs = args + (np.int32(ch),)
                        call = lambda: fn(grid, block, cargs)
                    b.fill(0)
                    call()
                    ok = bool(cp.array_equal(b, ref))
                    ms = bench(call)
                    gbs = nbytes / ms / 1e6
                    row = (name, f"{size[0]}x{size[1]}x{size[2]}", st, idx, mode, u, ch or 0,
                           "x".join(map(str, blk)), ms, gbs, gbs / same_gbs, gbs / big_gbs, regs, local, ok)
                    mine.append(row)
                    csv.write(",".join(str(v) if not isinstance(v, float) else f"{v:.5f}" for v in row[:-1]) + "\n")
                    if not ok:
                        print(f"  MISMATCH {k} block {blk} chunk {ch}", flush=True)
            csv.flush()
            mine.sort(key=lambda t: t[8])

            def show(rw):
                print(f"  {rw[2]:6s} {rw[3]} {rw[4]:8s} u{rw[5]} chunk {rw[6]:3d} block {rw[7]:9s} {rw[8]:8.4f} ms "
                      f"{rw[9]:7.1f} GB/s {rw[10]:5.2f} of same-copy {rw[11]:5.2f} of 8192^2-copy  regs {rw[12]:3d} "
                      f"local {rw[13]}", flush=True)
            print("  best 12:")
            for rw in mine[:12]:
                show(rw)
            print("  best per structure/mode/idx:")
            seen = set()
            for rw in mine:
                key = (rw[2], rw[3], rw[4], rw[5])
                if key not in seen:
                    seen.add(key)
                    show(rw)
            print("  the current default's shape by hand (march i32 plain u1 chunk 16 block 32x8):")
            for rw in mine:
                if rw[2] == "march" and rw[3] == "i32" and rw[4] == "plain" and rw[5] == 1 and rw[6] == 16 \
                        and rw[7] == "32x8":
                    show(rw)
            del a, b, w0, ref
            cp.get_default_memory_pool().free_all_blocks()
    csv.close()
    print(f"total {time.time() - T0:.0f} s")


if __name__ == "__main__":
    main()
