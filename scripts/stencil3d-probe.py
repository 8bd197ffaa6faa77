#!/usr/bin/env python3
"""Device time of the three 3D stencil samples (Stencil, Laplacian, Wave13pt) at the JMH sizes, in one process: hand
CUDA in several structures and acc4j's own kernels as the runtime dumped them (ACC4J_DUMP), each timed by CUDA events
in interleaved rounds (ROUNDS rounds of REPS launches, the median of the rounds' medians), every result checked bit
for bit against the hand kernel with one point per thread before timing.

Layouts, as the samples index their arrays: Stencil a[(k*ny + j)*nx + i] (stride-1 nx), Laplacian and Wave13pt
a[(i*ny + j)*nz + k] (stride-1 nz: at 512x512x64 the rows are 64 doubles long). The hand kernels work in (f, m, s)
coordinates (f stride-1, s the outermost) from scripts/stencil-hand.py's expressions (Java's order, --fmad=false).

Hand structures:
  pt BxByBz        one point per thread, x from the interior's first point (the compiler's mapping)
  ax BxByBz        one point per thread, x from the row's first element: warps start at row starts, the threads of
                   the first and last r elements of a row idle
  flat B           a 1D block over the (m, f) plane flattened from row r, the interior tested per thread
  fullrow BxByBz   ax, the idle edge threads writing 0 to b's row ends (a diagnostic: whether b's partial sectors
                   at the row ends cost; b's ends hold 0 in the reference as well)
  pfrow, ldrow     ax, the idle edge threads fetching b's row ends into L2 (prefetch.global.L2, or a load whose
                   value is dropped), so that the row's partial end sectors are whole in L2 when written back
  march c8 64x4    marched along s, chunks of 8 (scripts/stencil-hand.py's march)

acc4j kernels: arguments TAG=DIR (a dump folder). The default one-point kernel reads its block from %ntid, so it
is launched in several blocks; derived forms of its PTX: "nreg32" (.maxnreg 32 added, with PROBE_NREG set) and "fast" (the branches to
the strided paths removed: the path of threads whose grid covers the nest, which the launches here do). Marched
kernels (folders whose tag starts with "m_": chunk and block from the tag, m_c8_64x4) are launched as the runtime
does: x over f by the block's x, y over m, z over chunks of s.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import importlib  # noqa: E402

hand = importlib.import_module("stencil-hand")
import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

hand.cp = cp
REPS = int(os.environ.get("PROBE_REPS", "30"))
ROUNDS = int(os.environ.get("PROBE_ROUNDS", "5"))
DERIVED = os.path.join(os.environ.get("OUT", "/tmp"), "ptx", "derived")
os.makedirs(DERIVED, exist_ok=True)
KERNEL = {"stencil": "Stencil_stencil", "laplacian": "Laplacian_laplacian", "wave13pt": "Wave13pt_wave"}
NAMES = {"stencil": (("a", None, "b"), ("alpha", "beta")), "laplacian": (("a", None, "b"), ("cx", "cy", "cz")),
         "wave13pt": (("w1", "w0", "w2"), ("m0", "m1", "m2"))}
PT_BLOCKS = [(64, 2, 2), (64, 4, 1), (128, 2, 1), (256, 1, 1), (32, 8, 1)]
ACC_BLOCKS = [(64, 2, 2), (64, 4, 1), (64, 1, 4), (64, 8, 1), (32, 4, 2), (128, 2, 1)]


EDGE = {
    "ax": "return;",
    # a diagnostic: b's row ends written (Java does not write them)
    "fullrow": "if (f < nf && IN) b[((long long) s * nm + m) * nf + f] = 0.0; return;",
    # b's row ends fetched into L2 (no architectural effect), so that the partial sector the row's stores leave is
    # whole in L2 when written back
    "pfrow": "if (f < nf && IN) asm volatile(\"prefetch.global.L2 [%0];\" :: \"l\"(b + ((long long) s * nm + m) * nf + f));"
             " return;",
    # the same by a load whose value is dropped
    "ldrow": "if (f < nf && IN) { double t; asm volatile(\"ld.global.f64 %0, [%1];\" : \"=d\"(t) :"
             " \"l\"(b + ((long long) s * nm + m) * nf + f)); } return;",
}


def gen_ax(name, full):
    r, narr, e = hand.STENCILS[name]
    mode = {False: "ax", True: "fullrow"}.get(full, full)
    kname = f"{name}_{mode}"
    inside = f"m >= {r} && m < nm - {r} && s >= {r} && s < ns - {r}"
    edge = f"  if (f < {r} || f >= nf - {r}) {{ {EDGE[mode].replace('IN', inside)} }}"
    return kname, f"""
extern "C" __global__ void {kname}(const double* w0, const double* a, double* b, int nf, int nm, int ns,
    double P0, double P1, double P2) {{
  int f = blockIdx.x * blockDim.x + threadIdx.x;
  int m = blockIdx.y * blockDim.y + threadIdx.y + {r};
  int s = blockIdx.z * blockDim.z + threadIdx.z + {r};
{edge}
  if (m >= nm - {r} || s >= ns - {r}) return;
  long long SM = nf; long long SS = (long long) nf * nm;
  long long c = ((long long) s * nm + m) * nf + f;
#define LD(P) (P)[0]
#define A(df, dm, ds) LD(a + c + (df) + (dm) * SM + (ds) * SS)
#define W0 LD(w0 + c)
  b[c] = {e};
#undef A
#undef W0
#undef LD
}}
"""


def gen_flat(name):
    r, narr, e = hand.STENCILS[name]
    kname = f"{name}_flat"
    return kname, f"""
extern "C" __global__ void {kname}(const double* w0, const double* a, double* b, int nf, int nm, int ns,
    double P0, double P1, double P2) {{
  unsigned p = blockIdx.x * blockDim.x + threadIdx.x + {r} * nf;
  int s = blockIdx.y + {r};
  unsigned m = p / (unsigned) nf;
  unsigned f = p - m * nf;
  if (m >= nm - {r} || f < {r} || f >= nf - {r}) return;
  long long SM = nf; long long SS = (long long) nf * nm;
  long long c = (long long) s * SS + p;
#define LD(P) (P)[0]
#define A(df, dm, ds) LD(a + c + (df) + (dm) * SM + (ds) * SS)
#define W0 LD(w0 + c)
  b[c] = {e};
#undef A
#undef W0
#undef LD
}}
"""


def entry_params(ptx):
    m = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx, re.S)
    return m.group(1), [(t, n) for t, n in re.findall(r"\.param\s+\.(\w+)\s+(\w+)", m.group(2))]


def with_maxnreg(ptx, n):
    return re.sub(r"(\.entry\s+\w+\s*\([^)]*\))", lambda mm: mm.group(1) + f"\n.maxnreg {n}", ptx, count=1, flags=re.S)


def fast_only(ptx):
    return "\n".join(l for l in ptx.split("\n") if not re.search(r"bra \$L_(par|points)_strided", l))


def timed_rounds(calls):
    """calls: list of (label, fn); ROUNDS interleaved rounds; returns label -> median of round medians (ms)."""
    res = {lbl: [] for lbl, _ in calls}
    for _ in range(ROUNDS):
        for lbl, fn in calls:
            res[lbl].append(hand.bench(fn, reps=REPS, warm=3))
    return {k: sorted(v)[len(v) // 2] for k, v in res.items()}


def main():
    runs = []
    for arg in sys.argv[1:]:
        tag, d = arg.split("=", 1)
        runs.append((tag, d))
    srcs, hk = [], {}
    for name in hand.STENCILS:
        k, s = hand.gen_pt(name, "i64", "plain")
        srcs.append(s)
        hk[(name, "pt")] = k
        for mode in ("ax", "fullrow", "pfrow", "ldrow"):
            k, s = gen_ax(name, mode)
            srcs.append(s)
            hk[(name, mode)] = k
        k, s = gen_flat(name)
        srcs.append(s)
        hk[(name, "flat")] = k
        k, s = hand.gen_march(name, "i32", "plain", 0, 8)
        srcs.append(s)
        hk[(name, "march")] = k
    mod = cp.RawModule(code="\n".join(srcs), options=("--fmad=false",))
    fns = {key: mod.get_function(k) for key, k in hk.items()}
    print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), flush=True)
    N = 8192
    x = cp.random.rand(N * N)
    y = cp.empty_like(x)
    copy_big = hand.bench(lambda: cp.copyto(y, x))
    big_gbs = 2 * 8 * N * N / copy_big / 1e6
    print(f"copy cupy f64 8192^2 {copy_big:9.3f} ms {big_gbs:10.1f} GB/s", flush=True)
    del x, y
    loaded = {}
    for tag, d in runs:
        for name, owner in KERNEL.items():
            cands = sorted(f for f in os.listdir(d) if f.startswith("acc_" + owner + "_")
                           and f.endswith("_r0_marched.ptx")) if os.path.isdir(d) else []
            if not cands:
                print(f"{tag}: no marched kernel of {owner} in {d}", flush=True)
                continue
            ptx = open(os.path.join(d, cands[0])).read()
            forms = {"": ptx}
            if os.environ.get("PROBE_NREG"):
                forms["+nreg32"] = with_maxnreg(ptx, 32)
            if not tag.startswith("m_"):
                forms["+fast"] = fast_only(ptx)
            for form, text in forms.items():
                entry, params = entry_params(text)
                try:
                    path = os.path.join(DERIVED, f"{tag}{form.replace('+', '_')}_{name}.ptx")
                    with open(path, "w") as fh:
                        fh.write(text)
                    m = cp.RawModule(path=path)
                    fn = m.get_function(entry)
                    loaded[(tag + form, name)] = (fn, params, tag)
                except Exception as ex:  # noqa: BLE001
                    print(f"{tag}{form} {name}: not loaded: {ex}", flush=True)
    for name in hand.STENCILS:
        r, narr, _ = hand.STENCILS[name]
        (rd, rd0, wr), scal = NAMES[name]
        for size in hand.SIZES:
            nf, nm, ns = hand.LAYOUT[name](*size)
            nx, ny, nz = size
            tot = nf * nm * ns
            rng = np.random.default_rng(764)
            a = cp.asarray(rng.random(tot))
            w0 = cp.asarray(rng.random(tot)) if narr == 2 else cp.zeros(1)
            b = cp.zeros(tot)
            pts = (nf - 2 * r) * (nm - 2 * r) * (ns - 2 * r)
            nbytes = (narr + 1) * 8 * pts
            coef = hand.COEF[name]
            hargs = (w0, a, b, np.int32(nf), np.int32(nm), np.int32(ns)) + tuple(np.float64(c) for c in coef)
            gi = lambda n, dd: (n - 2 * r + dd - 1) // dd
            ga = lambda n, dd: (n - r + dd - 1) // dd
            ref_fn = fns[(name, "pt")]
            b.fill(0)
            ref_fn((gi(nf, 64), gi(nm, 2), gi(ns, 2)), (64, 2, 2), hargs)
            cp.cuda.Device().synchronize()
            ref = b.copy()
            calls, bad, regs = [], [], {}

            def add(label, fn, grid, block, args, kfn, errarr=None):
                b.fill(0)
                if errarr is not None:
                    errarr.fill(0)
                fn(grid, block, args)
                cp.cuda.Device().synchronize()
                if not bool(cp.array_equal(b, ref)) or (errarr is not None and int(errarr[0]) != 0):
                    bad.append(label)
                calls.append((label, lambda: fn(grid, block, args)))
                try:
                    regs[label] = kfn.num_regs
                except Exception:  # noqa: BLE001
                    regs[label] = -1

            for blk in PT_BLOCKS:
                f = fns[(name, "pt")]
                add(f"hand pt {blk[0]}x{blk[1]}x{blk[2]}", f, (gi(nf, blk[0]), gi(nm, blk[1]), gi(ns, blk[2])), blk,
                    hargs, f)
            for blk in ((64, 2, 2), (64, 4, 1), (128, 2, 1)):
                f = fns[(name, "ax")]
                add(f"hand ax {blk[0]}x{blk[1]}x{blk[2]}", f, (ga(nf, blk[0]), gi(nm, blk[1]), gi(ns, blk[2])), blk,
                    hargs, f)
            for mode in ("fullrow", "pfrow", "ldrow"):
                f = fns[(name, mode)]
                add(f"hand {mode} 64x2x2", f, ((nf + 63) // 64, gi(nm, 2), gi(ns, 2)), (64, 2, 2), hargs, f)
            f = fns[(name, "flat")]
            for bl in (256, 128):
                add(f"hand flat {bl}", f, (((nm - 2 * r) * nf + bl - 1) // bl, ns - 2 * r, 1), (bl, 1, 1), hargs, f)
            f = fns[(name, "march")]
            add("hand march c8 64x4", f, (gi(nf, 64), gi(nm, 4), gi(ns, 8)), (64, 4, 1), hargs + (np.int32(8),), f)
            err = cp.zeros(4, dtype=cp.int64)
            values = {rd: a, wr: b, "err": err, "nx": np.int32(nx), "ny": np.int32(ny), "nz": np.int32(nz)}
            if rd0:
                values[rd0] = w0
            for s_name, c in zip(scal, coef):
                values[s_name] = np.float64(c)
            for (tf, kname), (fn, params, tag) in loaded.items():
                if kname != name:
                    continue
                args = []
                for t, pn in params:
                    key = pn[2:] if pn.startswith("p_") else pn
                    if key.endswith("_len") and key[:-4] in values:
                        args.append(np.int32(tot))
                    else:
                        v = values[key]
                        args.append(np.float64(v) if t == "f64" else v)
                args = tuple(args)
                if tag.startswith("m_"):
                    ch, blk = tag[2:].split("_")
                    ch = int(ch)
                    bx, by = (int(t) for t in blk.split("x"))
                    add(f"acc4j {tf}", fn, (gi(nf, bx), gi(nm, by), gi(ns, ch)), (bx, by, 1), args, fn, err)
                else:
                    for blk in ACC_BLOCKS:
                        add(f"acc4j {tf} {blk[0]}x{blk[1]}x{blk[2]}", fn,
                            (gi(nf, blk[0]), gi(nm, blk[1]), gi(ns, blk[2])), blk, args, fn, err)
            t = timed_rounds(calls)
            print(f"== {name} {nx}x{ny}x{nz} (nf,nm,ns)=({nf},{nm},{ns}), {nbytes / 1e6:.1f} MB", flush=True)
            for lbl, ms in sorted(t.items(), key=lambda kv: kv[1]):
                gbs = nbytes / ms / 1e6
                print(f"  {lbl:44s} {ms * 1000:7.1f} us {gbs:7.1f} GB/s {gbs / big_gbs:5.3f} of copy regs {regs[lbl]:3d}"
                      f"{'  MISMATCH' if lbl in bad else ''}", flush=True)
            del a, b, w0, ref
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
