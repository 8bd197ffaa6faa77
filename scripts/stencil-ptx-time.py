#!/usr/bin/env python3
"""Times acc4j's own kernels for the three 3D stencil samples (Stencil, Laplacian, Wave13pt), as the runtime dumped
them (ACC4J_DUMP) under several ACC4J_MARCH shapes, beside reference hand kernels of scripts/stencil-hand.py and the
device copy, in one process, with the same CUDA-event timing (median of 20 launches after 3 warm-up launches).

Arguments: TAG=SHAPE=DIR ... : a dump folder per shape (SHAPE as ACC4J_MARCH takes it, "default" for none). Each
folder's *_marched.ptx kernels of Stencil.stencil, Laplacian.laplacian and Wave13pt.wave are loaded as they are;
their parameters are bound by name from the PTX entry (p_err, the arrays, p_<array>_len, the scalars) and the grid
is the one the runtime computes for the shape (points, the default: x, y, z by the block's extents; marched, with
points=off: x over the stride-1 loop by the block's x, y over the other loop by its y, z over the chunks). Every result is
checked bit for bit against the hand kernel with one point per thread before timing.
"""
import importlib
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
hand = importlib.import_module("stencil-hand")

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

hand.cp = cp
OUT = os.environ.get("OUT", "/tmp/stencil-ptx")
os.makedirs(OUT, exist_ok=True)
KERNEL = {"stencil": "Stencil_stencil_r0_marched", "laplacian": "Laplacian_laplacian_r0_marched",
          "wave13pt": "Wave13pt_wave_r0_marched"}
# the samples' parameter names: the arrays read (as the hand kernels' a and w0) and written, the scalars in order
NAMES = {"stencil": (("a", None, "b"), ("alpha", "beta")), "laplacian": (("a", None, "b"), ("cx", "cy", "cz")),
         "wave13pt": (("w1", "w0", "w2"), ("m0", "m1", "m2"))}


def shape_of(text):
    # the compiler's defaults: 3D nests kept at one point per thread in blocks of 64x2x2 (points=off: marched)
    s = {"chunk": 16, "block": (32, 8), "points": (64, 2, 2)}
    if text != "default":
        for e in text.split(","):
            k, _, v = e.partition("=")
            if k == "chunk":
                s["chunk"] = int(v)
            elif k == "block":
                s["block"] = tuple(int(t) for t in v.split("x"))
            elif k == "points":
                s["points"] = None if v == "off" else tuple(int(t) for t in v.split("x"))
    return s


def entry_params(ptx):
    m = re.search(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx, re.S)
    return m.group(1), [(t, n) for t, n in re.findall(r"\.param\s+\.(\w+)\s+(\w+)", m.group(2))]


def main():
    runs = []
    for a in sys.argv[1:]:
        # TAG=SHAPE=DIR: the shape may hold '=' itself, the folder does not
        tag, rest = a.split("=", 1)
        shape, d = rest.rsplit("=", 1) if "=" in rest else ("default", rest)
        runs.append((tag, shape, d))
    # reference hand kernels: one point per thread (64-bit subscripts, plain loads), block 64x2x2
    srcs = []
    for name in hand.STENCILS:
        srcs.append(hand.gen_pt(name, "i64", "plain")[1])
        srcs.append(hand.gen_march(name, "i32", "plain", 1)[1])
    mod = cp.RawModule(code="\n".join(srcs), options=("--fmad=false",))
    N = 8192
    x = cp.random.rand(N * N)
    y = cp.empty_like(x)
    copy_big = hand.bench(lambda: cp.copyto(y, x))
    big_gbs = 2 * 8 * N * N / copy_big / 1e6
    print(f"copy cupy f64 8192^2 {copy_big:9.3f} ms {big_gbs:10.1f} GB/s", flush=True)
    del x, y
    loaded = {}
    for tag, shape, d in runs:
        for name, k in KERNEL.items():
            # acc_<Class>_<method>[_L<line>]_r0_marched.ptx
            owner, _, _ = k.partition("_r0")
            cands = sorted(f for f in os.listdir(d) if f.startswith("acc_" + owner + "_")
                           and f.endswith("_r0_marched.ptx")) if os.path.isdir(d) else []
            if not cands:
                print(f"{tag}: no marched kernel of {owner} in {d}", flush=True)
                continue
            path = os.path.join(d, cands[0])
            ptx = open(path).read()
            entry, params = entry_params(ptx)
            m = cp.RawModule(path=path)
            loaded[(tag, name)] = (m.get_function(entry), params, shape_of(shape))
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
            ref_fn = mod.get_function(f"{name}_pt_i64_plain")
            b.fill(0)
            ref_fn((gi(nf, 64), gi(nm, 2), gi(ns, 2)), (64, 2, 2), hargs)
            ref = b.copy()
            label = f"{name} {nx}x{ny}x{nz}"
            rows = []
            ms = hand.bench(lambda: ref_fn((gi(nf, 64), gi(nm, 2), gi(ns, 2)), (64, 2, 2), hargs))
            rows.append(("hand pt i64 plain 64x2x2", ms, True, ""))
            mf = mod.get_function(f"{name}_march_i32_plain_u1")
            for blk, ch in (((64, 4), 8), ((32, 8), 16)):
                cargs = hargs + (np.int32(ch),)
                call = lambda: mf((gi(nf, blk[0]), gi(nm, blk[1]), gi(ns, ch)), (blk[0], blk[1], 1), cargs)
                b.fill(0)
                call()
                rows.append((f"hand march i32 plain chunk {ch} {blk[0]}x{blk[1]}", hand.bench(call),
                             bool(cp.array_equal(b, ref)), ""))
            err = cp.zeros(4, dtype=cp.int64)
            values = {rd: a, wr: b, "err": err, "nx": np.int32(nx), "ny": np.int32(ny), "nz": np.int32(nz)}
            if rd0:
                values[rd0] = w0
            for s_name, c in zip(scal, coef):
                values[s_name] = np.float64(c)
            for tag, shape, d in runs:
                if (tag, name) not in loaded:
                    continue
                fn, params, sh = loaded[(tag, name)]
                args = []
                ok = True
                for t, pn in params:
                    key = pn[2:] if pn.startswith("p_") else pn
                    if key.endswith("_len") and key[:-4] in values:
                        args.append(np.int32(tot))
                    elif key in values:
                        v = values[key]
                        args.append(np.float64(v) if t == "f64" else v)
                    else:
                        print(f"  {tag} {label}: no value for parameter {pn}", flush=True)
                        ok = False
                if not ok:
                    continue
                args = tuple(args)
                if sh["points"]:
                    px, py, pz = sh["points"]
                    grid, block = (gi(nf, px), gi(nm, py), gi(ns, pz)), (px, py, pz)
                else:
                    bx, by = sh["block"]
                    grid, block = (gi(nf, bx), gi(nm, by), gi(ns, sh["chunk"])), (bx, by, 1)
                b.fill(0)
                err.fill(0)
                fn(grid, block, args)
                same = bool(cp.array_equal(b, ref)) and int(err[0]) == 0
                rows.append((f"acc4j {tag} ({shape})", hand.bench(lambda: fn(grid, block, args)), same,
                             f"regs {fn.num_regs}" if hasattr(fn, "num_regs") else ""))
            print(f"== {label}", flush=True)
            for what, ms, same, extra in rows:
                gbs = nbytes / ms / 1e6
                print(f"  {what:48s} {ms:8.4f} ms {gbs:7.1f} GB/s {gbs / big_gbs:5.2f} of copy"
                      f"{'' if same else '  MISMATCH'} {extra}", flush=True)
            del a, b, w0, ref
            cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
