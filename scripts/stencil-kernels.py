# The 5x5 Gaussian blur and the 5-point Jacobi sweep over 8192^2 doubles in several hand-written CUDA structures
# (scripts/stencil-kernels.cu, built with --fmad=false so that each keeps Java's bits) beside the compiler's own
# kernels (PTX written by org.acc4j.samples.bench.StencilPtx into DIR) and the device copy of the same bytes, all in
# one process. Every form is first checked against plain Java's result, every interior element bit for bit (the
# reference is computed on the device in Java's order, one rounded operation at a time); then each is timed by CUDA
# events, the median of 20 launches after 3 warm-ups, in ROUNDS rounds in a shuffled order, and reported as the median
# over rounds with its registers per thread (the driver's figure, as ptxas -v gives it).
#
# usage: python3 scripts/stencil-kernels.py [DIR] [ROUNDS] [SELECT]   (SELECT: a regular expression the names of the
# forms to run match)
import os, random, re, sys
import numpy as np
import cupy as cp

here = os.path.dirname(os.path.abspath(__file__))
ours_dir = sys.argv[1] if len(sys.argv) > 1 else None
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
select = sys.argv[3] if len(sys.argv) > 3 else ""
N = int(os.environ.get("STENCIL_N", "8192"))
m = n = N


def cdiv(a, b):
    return (a + b - 1) // b


def bench(fn, reps=20, warm=3):
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e))
    ts.sort()
    return ts[len(ts) // 2]


# ---- data and references (Java's order, one rounded operation at a time) ----
rng = np.random.default_rng(25)
A = cp.asarray(rng.random(m * n))
B = cp.zeros(m * n)
wh = np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).ravel() / 256.0
wh = wh * (1 + 1e-3 * rng.standard_normal(25))  # not all equal per ring, so a tap on the wrong weight shows
W = cp.asarray(wh)
A2 = A.reshape(m, n)
ref_blur = cp.zeros((m - 4, n - 4))
for di in range(5):
    for dj in range(5):
        ref_blur = ref_blur + W[di * 5 + dj] * A2[di:di + m - 4, dj:dj + n - 4]
ref_jac = 0.25 * (((A2[0:m - 2, 1:n - 1] + A2[2:m, 1:n - 1]) + A2[1:m - 1, 0:n - 2]) + A2[1:m - 1, 2:n])
cp.cuda.Device().synchronize()
ERR = cp.zeros(64, dtype=cp.uint8)

src = open(os.path.join(here, "stencil-kernels.cu")).read()
forms = []  # (name, kind, function, grid, block, args)


def blur_args():
    return (A, B, W, cp.int32(m), cp.int32(n))


def jac_args():
    return (A, B, cp.int32(n))


G = []  # name expressions of the templates
def gb(expr, name, block, grid):
    G.append(expr)
    forms.append([name, "blur", expr, grid, block, None])


def jk(expr, name, block, grid):
    G.append(expr)
    forms.append([name, "jacobi", expr, grid, block, None])


ti, tj = m - 4, n - 4
for wm, wn in ((0, "wreg"), (1, "wconst"), (2, "wsmem")):
    gb(f"gb_naive<{wm}>", f"naive {wn} 32x8", (32, 8, 1), (cdiv(tj, 32), cdiv(ti, 8), 1))
gb("gb_naive<1>", "naive wconst 128x2", (128, 2, 1), (cdiv(tj, 128), cdiv(ti, 2), 1))
for R in (4, 8, 16, 32):
    for wm, wn in ((0, "wreg"), (1, "wconst"), (2, "wsmem")):
        gb(f"gb_march<{R},1,1,{wm}>", f"march R{R} {wn} 128x1", (128, 1, 1), (cdiv(tj, 128), cdiv(ti, R), 1))
for bx, by in ((64, 2), (32, 4), (256, 1)):
    gb("gb_march<16,1,1,1>", f"march R16 wconst {bx}x{by}", (bx, by, 1), (cdiv(tj, bx), cdiv(ti, 16 * by), 1))
for PJ, PI in ((2, 1), (4, 1), (1, 2), (1, 4), (2, 2)):
    for wm, wn in ((0, "wreg"), (1, "wconst")):
        gb(f"gb_march<16,{PJ},{PI},{wm}>", f"march R16 {PJ}j x {PI}i {wn} 128x1", (128, 1, 1),
           (cdiv(tj, 128 * PJ), cdiv(ti, 16), 1))
gb("gb_march<8,2,1,1>", "march R8 2j x 1i wconst 128x1", (128, 1, 1), (cdiv(tj, 256), cdiv(ti, 8), 1))
gb("gb_march<32,2,1,1>", "march R32 2j x 1i wconst 128x1", (128, 1, 1), (cdiv(tj, 256), cdiv(ti, 32), 1))
gb("gb_march<8,1,2,1>", "march R8 1j x 2i wconst 128x1", (128, 1, 1), (cdiv(tj, 128), cdiv(ti, 8), 1))
for wm, wn in ((0, "wreg"), (1, "wconst")):
    gb(f"gb_march_js<16,{wm}>", f"march R16 2j strided {wn} 128x1", (128, 1, 1), (cdiv(tj, 256), cdiv(ti, 16), 1))
for U in (1, 2, 4, 8):
    gb(f"gb_march_u<16,{U}>", f"march loop peeled, later steps by {U}, R16 wreg 128x1", (128, 1, 1),
       (cdiv(tj, 128), cdiv(ti, 16), 1))
gb("gb_march_u<32,8>", "march loop peeled, later steps by 8, R32 wreg 128x1", (128, 1, 1), (cdiv(tj, 128), cdiv(ti, 32), 1))
for R, U, GS, WE in ((16, 1, 1, 0), (16, 4, 1, 0), (16, 4, 1, 1), (16, 4, 1, 2), (16, 4, 0, 0), (16, 8, 1, 1),
                     (16, 1, 1, 1), (8, 7, 1, 0), (8, 7, 1, 2), (4, 3, 1, 0), (4, 3, 1, 2)):
    gb(f"gb_march_x<{R},{U},{GS},{WE}>", f"march layout U{U} {'grid-stride' if GS else 'loops once'} "
       f"{('weights per chunk', 'weights at entry', 'weights at entry guarded')[WE]} R{R} 128x1", (128, 1, 1),
       (cdiv(tj, 128), cdiv(ti, R), 1))
gb("gb_march_loop<16>", "march loop (ours' structure) R16 wreg 128x1", (128, 1, 1), (cdiv(tj, 128), cdiv(ti, 16), 1))
for by, rpt, wm, wn in ((8, 4, 1, "wconst"), (8, 2, 1, "wconst"), (8, 4, 2, "wsmem"), (4, 8, 1, "wconst")):
    gb(f"gb_smem<{by},{rpt},{wm}>", f"smem tile 32x{by * rpt} {wn} 32x{by}", (32, by, 1),
       (cdiv(tj, 32), cdiv(ti, by * rpt), 1))

ji, jj = n - 2, n - 2
for bx, by in ((32, 8), (128, 2), (64, 4), (256, 1), (32, 16), (32, 4)):
    forms.append([f"jacobi anchors {bx}x{by}", "jacobi", "jacobi", (cdiv(n, bx), cdiv(n, by), 1), (bx, by, 1), None])
for bx, by in ((32, 8), (128, 2)):
    forms.append([f"jacobi 32-bit {bx}x{by}", "jacobi", "jacobi32", (cdiv(n, bx), cdiv(n, by), 1), (bx, by, 1), None])
for P in (2, 4):
    for bx, by in ((32, 8), (128, 2)):
        jk(f"jacobi_i<{P}>", f"jacobi {P} rows/thread adjacent {bx}x{by}", (bx, by, 1), (cdiv(n, bx), cdiv(ji, by * P), 1))
        jk(f"jacobi_is<{P}>", f"jacobi {P} rows/thread strided {bx}x{by}", (bx, by, 1), (cdiv(n, bx), cdiv(ji, by * P), 1))
    jk(f"jacobi_js<{P}>", f"jacobi {P} cols/thread strided 32x8", (32, 8, 1), (cdiv(n, 32 * P), cdiv(n, 8), 1))
for R in (4, 8, 16):
    for bx, by in ((32, 8), (128, 1)):
        jk(f"jacobi_march<{R}>", f"jacobi march R{R} {bx}x{by}", (bx, by, 1), (cdiv(n, bx), cdiv(ji, by * R), 1))

# only the templates of the forms selected are compiled
forms = [f for f in forms if re.search(select, f[0])]
G = [f[2] for f in forms if "<" in f[2]]
mod = cp.RawModule(code=src, options=("--fmad=false", "-std=c++17"), name_expressions=list(dict.fromkeys(G)))
try:
    cw = mod.get_global("cw")
    cp.ndarray((25,), cp.float64, cw)[...] = W
except Exception as e:  # no form selected reads the constant weights
    print(f"constant weights not set: {e}")
for f in forms:
    f[2] = mod.get_function(f[2])

# ---- the compiler's kernels ----
if ours_dir and os.path.exists(os.path.join(ours_dir, "forms.txt")):
    for line in open(os.path.join(ours_dir, "forms.txt")):
        parts = line.split()
        if not parts:
            continue
        name, entry, kind, block = parts[0], parts[1], parts[2], tuple(int(x) for x in parts[3].split(","))
        trips = [m - 4, n - 4] if kind == "blur" else [m - 2, n - 2]
        grid = []
        for g in parts[4:7]:
            if g == "-":
                grid.append(1)
                continue
            level, per, step = (int(x) for x in g.split(":"))
            grid.append(min(cdiv(cdiv(trips[level], step), per), 2 ** 31 - 1 if len(grid) == 0 else 65535))
        ptx = os.path.join(ours_dir, name + ".ptx")
        text = open(ptx).read()
        params = []
        head = text[text.index(".entry " + entry):]
        for pl in head[:head.index(")")].splitlines():
            pl = pl.strip().rstrip(",")
            if pl.startswith(".param"):
                params.append(pl.split()[-1])
        arrays = {"a": A, "b": B, "w": W} if kind == "blur" else {"src": A, "dst": B}
        args = []
        for p in params:
            key = p[2:]
            if key == "err":
                args.append(ERR)
            elif key in arrays:
                args.append(arrays[key])
            elif key.endswith("_len") and key[:-4] in arrays:
                args.append(cp.int32(arrays[key[:-4]].size))
            elif key == "m":
                args.append(cp.int32(m))
            elif key == "n":
                args.append(cp.int32(n))
            else:
                raise SystemExit(f"{name}: parameter {p} unknown")
        fn = cp.RawModule(path=ptx).get_function(entry)
        forms.append([name, kind, fn, tuple(grid), block, tuple(args)])

forms = [f for f in forms if re.search(select, f[0])]
for f in forms:
    if f[5] is None:
        f[5] = blur_args() if f[1] == "blur" else jac_args()


def launch(f):
    f[2](f[3], f[4], f[5])


# ---- correctness: every interior element, bit for bit ----
bad_forms = []
for f in forms:
    B.fill(0)
    launch(f)
    cp.cuda.Device().synchronize()
    B2 = B.reshape(m, n)
    if f[1] == "blur":
        got, ref = B2[2:m - 2, 2:n - 2], ref_blur
    else:
        got, ref = B2[1:m - 1, 1:n - 1], ref_jac
    bad = int(cp.count_nonzero(got.view(cp.int64) != ref.view(cp.int64)))
    if bad:
        bad_forms.append(f[0])
    print(f"check {f[0]:48s} {'every element as plain Java' if bad == 0 else str(bad) + ' elements differ'}",
          flush=True)

# ---- timing ----
X = cp.random.rand(m * n)
Y = cp.empty_like(X)
copy2 = mod.get_function("copy2")
sms = cp.cuda.Device().attributes["MultiProcessorCount"]
timed = [("copy cupy", None, lambda: cp.copyto(Y, X)),
         ("copy kernel", None, lambda: copy2((sms * 8,), (256,), (X, Y, cp.uint64(m * n // 2))))]
for f in forms:
    timed.append((f[0], f, (lambda f=f: launch(f))))
ms = {t[0]: [] for t in timed}
shuffle = random.Random(17)
order = list(range(len(timed)))
for r in range(rounds):
    shuffle.shuffle(order)
    for k in order:
        name, f, fn = timed[k]
        ms[name].append(bench(fn))
    print(f"round {r + 1} of {rounds} done", flush=True)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


copy = med(ms["copy cupy"])
print()
print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; {m} x {n} f64; median over {rounds} rounds "
      f"of the median of 20 launches; copy (CuPy) {copy:.4f} ms = {2 * 8 * m * n / copy / 1e6:.0f} GB/s")
print("ratio: of the copy's bandwidth (one read and one write per interior point, as the JMH summaries count);"
      " jacobi also as anchors-32x8 time / form time")
print(f"| form | regs | ms | GB/s | of copy | of anchors jacobi |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
anchors = med(ms["jacobi anchors 32x8"]) if "jacobi anchors 32x8" in ms else None
for name, f, fn in timed:
    t = med(ms[name])
    if f is None:
        pts = m * n
    elif f[1] == "blur":
        pts = (m - 4) * (n - 4)
    else:
        pts = (m - 2) * (n - 2)
    gbs = 16 * pts / t / 1e6
    regs = f[2].num_regs if f is not None else ""
    rel = f"{anchors / t:.3f}" if f is not None and f[1] == "jacobi" and anchors else ""
    print(f"| {name} | {regs} | {t:.4f} | {gbs:.0f} | {gbs / (16 * m * n / copy / 1e6):.3f} | {rel} |")
print("check: every form gives plain Java's bits" if not bad_forms else "check FAILED: " + ", ".join(bad_forms))
