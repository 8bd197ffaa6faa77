package org.acc4j.compiler.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * Random loop nests within what the README says the compiler supports, and a few constructs outside it.
 *
 * <p>A nest is 1 to 3 loops deep, perfectly or imperfectly nested, with {@code int} or {@code long} indices, any of
 * {@code < <= > >= !=} ({@code !=} with a bound a whole number of steps away, so that Java's loop ends without
 * wrapping around), positive or negative constant steps and bounds from parameters and expressions. It writes one or two output arrays at a subscript that is injective in the loops it names (so those
 * loops are truly independent: only they ever get {@code @Loop} clauses), and reads inputs of every element type
 * at affine subscripts, all in range unless an out-of-range access is planted on purpose. Unannotated nests are
 * sometimes made dependent (a write that every outer iteration repeats, a read of a neighbour's element, a scalar
 * carried across iterations, a stride smaller than the inner span): the compiler's dependence test must then keep
 * the loop sequential, refuse the nest, or refuse the call at launch.
 *
 * <p>Every array length and argument is chosen with the source, so a nest and its inputs are a pure function of the
 * seed and the {@link Options}.
 */
public final class NestGenerator {
    /** Constructs that can be switched off by name (to keep CI green while a bug found with them is open). */
    public static final List<String> FLAGS = List.of("long-index", "triangular", "down", "2d", "ternary",
            "if", "reduction", "dependent", "fault", "unsupported", "annotations", "collapse", "imperfect",
            "float-ops", "shifts", "division", "math", "casts", "not-equal", "while", "private", "tiling", "stencil");

    /** Which flagged constructs are off; immutable, {@link #without} returns a copy. */
    public record Options(Set<String> off) {
        public static final Options ALL = new Options(Set.of());

        public Options {
            off = Set.copyOf(off);
            for (String f : off) {
                if (!FLAGS.contains(f)) {
                    throw new IllegalArgumentException("no generator flag " + f + " (flags: " + FLAGS + ")");
                }
            }
        }

        public Options without(String... flags) {
            Set<String> s = new TreeSet<>(off);
            s.addAll(List.of(flags));
            return new Options(s);
        }

        boolean on(String flag) {
            return !off.contains(flag);
        }
    }

    private static final String[] TYPES = {"int", "long", "float", "double"};

    /** A loop of the nest with its concrete index range (for this call's arguments). */
    private static final class L {
        String name;
        String type;
        long min;
        long max;
        boolean empty;
        boolean triangular;
    }

    /** An array parameter: its element type, rank and the extreme subscripts generated for it so far. */
    static final class Arr {
        String name;
        String elem;
        boolean twoD;
        long maxIndex = -1;
        long maxRow = -1;
        /** Planes of a three-dimensional array ({@code double[planes][maxRow + 1][maxIndex + 1]}), or -1. */
        long planes = -1;
        boolean output;
        /** The earlier array parameter whose value the call passes for this one too, or null. */
        String sameAs;
    }

    private record Scalar(String name, String type) {
    }

    final Random r;
    /** Decides alone whether a nest gets a sequential while loop, so that nests without one stay as they were. */
    private final Random whileDice;
    /** Decides alone whether a nest gets a private array, so that nests without one stay as they were. */
    private final Random privateDice;
    final Options o;
    private final long seed;
    final Set<String> features = new TreeSet<>();
    final Map<String, Nest.Param> scalarParams = new LinkedHashMap<>();
    final List<Arr> arrays = new ArrayList<>();
    private final List<Scalar> scope = new ArrayList<>();
    private final List<L> loops = new ArrayList<>();
    final StringBuilder body = new StringBuilder();
    String fault;
    String unsupported;
    private int locals;
    private int exprBudget;
    private boolean divZeroPlanted;
    private String dependence;
    private final Map<Arr, String[]> subscripts = new java.util.HashMap<>();
    /** Whether the nest gets {@code @Loop} clauses (decided before the loop headers). */
    private boolean annotated;

    private NestGenerator(long seed, Options options) {
        this.seed = seed;
        this.r = new Random(seed * 0x9E3779B97F4A7C15L + 17);
        this.whileDice = new Random(seed * 0x2545F4914F6CDD1DL + 5);
        this.privateDice = new Random(seed * 0x6A09E667F3BCC909L + 11);
        this.o = options;
    }

    /** The nest of {@code seed}. */
    public static Nest generate(long seed, Options options) {
        // a die of its own, so that the other nests stay what they were
        Random shapes = new Random(seed * 0x632BE59BD9B4E019L + 3);
        if (options.on("tiling") && shapes.nextInt(100) < 10) {
            return new NestGenerator(seed, options).tiledShape(shapes);
        }
        if (options.on("stencil") && shapes.nextInt(100) < 10) {
            NestGenerator g = new NestGenerator(seed, options);
            return new StencilShapes(g, shapes).generate();
        }
        return new NestGenerator(seed, options).nest();
    }

    // ------------------------------------------------------------------ transpose and matmul shapes

    /** A size near a tile's edge, or an empty, single or small one. */
    static int edgeSize(Random d, int... edges) {
        return d.nextInt(3) == 0 ? d.nextInt(45) : edges[d.nextInt(edges.length)];
    }

    Arr shapeArray(String name, String elem, boolean twoD, boolean output, long rows, long cols) {
        Arr a = array(name, elem, twoD, output);
        if (twoD) {
            a.maxRow = rows - 1;
            a.maxIndex = rows > 0 ? cols - 1 : -1;
        } else {
            a.maxIndex = rows * cols - 1;
        }
        return a;
    }

    /**
     * A nest the tiling pass takes: a transpose (flat, read along either loop, or two-dimensional) or a matmul (flat
     * with either operand transposed, or two-dimensional, starting from a constant or from the element of the output),
     * at sizes around the tiles' edges (0, 1, 31..33, 63..65), sometimes with an array one element short (the call raises Java's exception).
     */
    private Nest tiledShape(Random d) {
        boolean twoD = o.on("2d") && d.nextInt(4) == 0;
        if (d.nextBoolean()) {
            features.add("tiling-transpose");
            int n = edgeSize(d, 0, 1, 2, 31, 32, 33, 63, 64, 65);
            int m = edgeSize(d, 0, 1, 2, 31, 32, 33, 63, 64, 65);
            scalarParams.put("n", new Nest.Param("n", "int", n));
            scalarParams.put("m", new Nest.Param("m", "int", m));
            String elem = twoD ? "double" : pick(TYPES);
            int form = twoD ? 2 : d.nextInt(2);
            shapeArray("a", elem, twoD, false, n, m);
            shapeArray("o", elem, twoD, true, twoD ? m : n, twoD ? n : m);
            String store = switch (form) {
                case 0 -> "o[j * n + i] = a[i * m + j];";
                case 1 -> "o[i * m + j] = a[j * n + i];";
                default -> "o[j][i] = a[i][j];";
            };
            if (form == 1) {
                // a is read along i: a[j * n + i] spans m rows of n
                arrays.get(0).maxIndex = (long) n * m - 1;
            }
            body.append("        for (int i = 0; i < n; i++) {\n            for (int j = 0; j < m; j++) {\n")
                    .append("                ").append(store).append("\n            }\n        }\n");
        } else {
            features.add("tiling-matmul");
            int n = edgeSize(d, 0, 1, 15, 16, 17, 33);
            int m = edgeSize(d, 0, 1, 15, 16, 17, 33);
            int p = edgeSize(d, 0, 1, 15, 16, 17, 33);
            scalarParams.put("n", new Nest.Param("n", "int", n));
            scalarParams.put("m", new Nest.Param("m", "int", m));
            scalarParams.put("p", new Nest.Param("p", "int", p));
            int form = twoD ? 3 : d.nextInt(3);
            shapeArray("a", "double", twoD, false, form == 1 ? p : n, form == 1 ? n : p);
            shapeArray("b", "double", twoD, false, form == 2 ? m : p, form == 2 ? p : m);
            shapeArray("o", "double", twoD, true, n, m);
            String product = switch (form) {
                case 0 -> "a[i * p + k] * b[k * m + j]";
                case 1 -> "a[k * n + i] * b[k * m + j]";
                case 2 -> "a[i * p + k] * b[j * p + k]";
                default -> "a[i][k] * b[k][j]";
            };
            String own = twoD ? "o[i][j]" : "o[i * m + j]";
            String init = d.nextInt(4) == 0 ? own : pick("0", "0.5", "-1.25");
            body.append("        for (int i = 0; i < n; i++) {\n            for (int j = 0; j < m; j++) {\n")
                    .append("                double s = ").append(init).append(";\n")
                    .append("                for (int k = 0; k < p; k++) {\n                    s += ").append(product)
                    .append(";\n                }\n                ").append(twoD ? "o[i][j] = s;" : "o[i * m + j] = s;")
                    .append("\n            }\n        }\n");
        }
        if (d.nextInt(8) == 0) {
            fault = "index";
        }
        aliases(new Random(seed * 0x3C6EF372FE94F82BL + 23));
        return finish(false);
    }

    /**
     * Sometimes binds two array parameters of a shape to one array (a die of its own, so that the shapes stay what
     * they were): the input as the output too ({@code tiling-alias}: the launch must be refused), or, for a matmul
     * whose second operand's reads fit in the first, both operands ({@code tiling-alias-read}: fine).
     */
    private void aliases(Random d) {
        Arr a = named("a");
        Arr b = named("b");
        Arr out = named("o");
        int k = d.nextInt(100);
        if (k < 6 && a.twoD == out.twoD) {
            out.sameAs = "a";
            features.add("tiling-alias");
        } else if (k < 12 && b != null && fault == null && b.maxRow <= a.maxRow && b.maxIndex <= a.maxIndex) {
            b.sameAs = "a";
            features.add("tiling-alias-read");
        }
    }

    private Arr named(String name) {
        return arrays.stream().filter(x -> x.name.equals(name)).findFirst().orElse(null);
    }

    private boolean chance(int percent, String flag) {
        return (flag == null || o.on(flag)) && r.nextInt(100) < percent;
    }

    String pick(String... s) {
        return s[r.nextInt(s.length)];
    }

    // ------------------------------------------------------------------ the nest

    private Nest nest() {
        int depth = 1 + r.nextInt(3);
        int maxSize = depth == 1 ? 300 : depth == 2 ? 36 : 13;
        String[] names = {"i", "j", "k"};
        String[] sizes = {"n", "m", "p"};
        for (int d = 0; d < depth; d++) {
            int v = r.nextInt(12) == 0 ? r.nextInt(3) : 1 + r.nextInt(maxSize);
            scalarParams.put(sizes[d], new Nest.Param(sizes[d], "int", v));
        }
        scalarParams.put("alpha", new Nest.Param("alpha", "double", r.nextDouble() * 4 - 2));
        scalarParams.put("beta", new Nest.Param("beta", "float", (float) (r.nextGaussian() * 3)));
        scalarParams.put("c", new Nest.Param("c", "int", r.nextInt(41) - 20));
        scalarParams.put("q", new Nest.Param("q", "long", r.nextLong() >> r.nextInt(64)));
        for (String s : List.of("alpha", "beta", "c", "q")) {
            scope.add(new Scalar(s, scalarParams.get(s).type()));
        }
        boolean dependentAllowed = chance(20, "dependent");
        dependence = dependentAllowed ? pick("same", "neighbour", "carry", "stride") : null;
        boolean reduction = depth >= 2 && dependence == null && chance(25, "reduction");
        boolean annotate = dependence == null && chance(45, "annotations");
        annotated = annotate;
        if (chance(6, "fault")) {
            fault = r.nextBoolean() || !o.on("division") ? "index" : "div0";
            features.add("fault-" + fault);
        }
        int plantAt = chance(6, "unsupported") ? r.nextInt(depth) : -1;
        if (dependence != null) {
            features.add("dependent-" + dependence);
        }

        // loops: headers first (with their concrete ranges), written out as the body is generated
        String[] headers = new String[depth];
        for (int d = 0; d < depth; d++) {
            L l = new L();
            l.name = names[d];
            l.type = chance(7, "long-index") ? "long" : "int";
            headers[d] = header(l, d, sizes[d]);
            loops.add(l);
        }
        if (unsupported != null) {
            plantAt = -1;
        }

        // output: injective in the loops it names (all, or all but a reduction loop)
        Arr out = array("o", pick(TYPES), depth >= 2 && chance(12, "2d"), true);
        int named = reduction ? depth - 1 : depth;
        boolean dropOuter = "same".equals(dependence) && depth >= 2;
        Arr out2 = chance(15, null) ? array("o2", pick(TYPES), false, true) : null;
        String carry = "carry".equals(dependence) ? "carry" : null;
        if (carry != null) {
            body.append("        double carry = 0.5;\n");
        }

        // collapse: the outer loops of a perfect rectangular chain
        int collapse = 1;
        boolean perfect = !reduction && !chance(40, "imperfect");
        if (annotate && perfect && named >= 2 && chance(30, "collapse")
                && loops.subList(0, named).stream().noneMatch(x -> x.triangular)) {
            collapse = 2 + (named >= 3 ? r.nextInt(2) : 0);
            features.add("collapse");
        }
        int block = 1;
        for (int d = 0; d < depth; d++) {
            String indent = "        " + "    ".repeat(d);
            L l = loops.get(d);
            String ann = "";
            boolean inChain = d < named;
            if (annotate && inChain && !(d > 0 && d < collapse)) {
                String[] clause = clauses(d == 0 ? collapse : 1, block);
                ann = clause[0];
                block *= Integer.parseInt(clause[1]);
            } else if (annotate && !inChain && chance(50, null)) {
                ann = "@Loop(seq = true) ";
            }
            if (!ann.isEmpty()) {
                features.add("annotated");
            }
            body.append(indent).append(headers[d].replace("@ANN", ann)).append(" {\n");
            scope.add(new Scalar(l.name, l.type));
            String in = indent + "    ";
            if (d < depth - 1 && !perfect) {
                features.add("imperfect");
                int defs = 1 + r.nextInt(2);
                for (int q = 0; q < defs; q++) {
                    local(in, pick(TYPES), 2);
                }
                if (plantAt == d) {
                    plant(in);
                }
            }
            if (reduction && d == depth - 2) {
                String t = out.elem.equals("int") || out.elem.equals("long") ? out.elem : pick("double", "float", out.elem);
                body.append(in).append(t).append(" acc = ").append(constant(t)).append(";\n");
                features.add("reduction");
                // the reduction loop, its body and the store after it
                d++;
                L k = loops.get(d);
                String kin = in + "    ";
                String kann = annotate && chance(50, null) ? "@Loop(seq = true) " : "";
                body.append(in).append(headers[d].replace("@ANN", kann)).append(" {\n");
                int scopeMark = scope.size();
                scope.add(new Scalar(k.name, k.type));
                if (plantAt == d) {
                    plant(kin);
                }
                String v = expr(t, 3);
                body.append(kin).append(switch (r.nextInt(3)) {
                    case 0 -> "acc += " + v + ";\n";
                    case 1 -> "acc = " + call("max", t, "acc", v) + ";\n";
                    default -> "acc = (" + t + ") (acc * " + constant(t) + " + " + v + ");\n";
                });
                body.append(in).append("}\n");
                scope.subList(scopeMark, scope.size()).clear();
                store(in, out, named, false, null, "acc", t);
                break;
            }
            if (d == depth - 1) {
                int defs = r.nextInt(3);
                for (int q = 0; q < defs; q++) {
                    local(in, pick(TYPES), 2);
                }
                if (plantAt == d) {
                    plant(in);
                }
                if (o.on("while") && whileDice.nextInt(100) < 20) {
                    whileLoop(in);
                }
                if (o.on("private") && privateDice.nextInt(100) < 15) {
                    privateArray(in);
                }
                if (carry != null) {
                    body.append(in).append("carry = carry * 0.5 + ").append(expr("double", 2)).append(";\n");
                    scope.add(new Scalar("carry", "double"));
                }
                boolean branch = chance(20, "if");
                if (branch) {
                    features.add("if");
                    body.append(in).append("if (").append(cond(2)).append(") {\n");
                    store(in + "    ", out, named, dropOuter, dependence, null, null);
                    if (r.nextBoolean()) {
                        body.append(in).append("} else {\n");
                        store(in + "    ", out, named, dropOuter, dependence, null, null);
                    }
                    body.append(in).append("}\n");
                } else {
                    store(in, out, named, dropOuter, dependence, null, null);
                }
                if (out2 != null) {
                    store(in, out2, named, false, null, null, null);
                }
            }
        }
        for (int d = loops.size() - 1; d >= 0; d--) {
            if (d == depth - 1 && reduction) {
                continue;
            }
            body.append("        ").append("    ".repeat(d)).append("}\n");
        }
        return finish(annotate);
    }

    /** The loop header with an {@code @ANN} hole for its annotation; sets the loop's concrete range. */
    private String header(L l, int d, String size) {
        int n = (Integer) scalarParams.get(size).value();
        // the exclusive upper end, as text and value
        String hiText;
        long hi;
        boolean triangular = d > 0 && loops.get(d - 1).type.equals("int") && l.type.equals("int")
                && chance(10, "triangular");
        switch (triangular ? -1 : r.nextInt(6)) {
            case -1 -> {
                L outer = loops.get(d - 1);
                hiText = outer.name + " + 1";
                hi = outer.max + 1;
                l.triangular = true;
                features.add("triangular");
            }
            case 0 -> {
                hiText = size + " - 1";
                hi = n - 1;
            }
            case 1 -> {
                hiText = size + " / 2 + 1";
                hi = n / 2 + 1;
            }
            case 2 -> {
                String other = d == 0 ? "n" : "m".equals(size) ? "n" : "m";
                int v = (Integer) scalarParams.get(other).value();
                hiText = "Math.min(" + size + ", " + other + " + 2)";
                hi = Math.min(n, v + 2);
            }
            default -> {
                hiText = size;
                hi = n;
            }
        }
        long lo = r.nextInt(4) == 0 ? r.nextInt(3) : 0;
        int step = r.nextInt(4) == 0 ? 2 + r.nextInt(2) : 1;
        boolean down = !triangular && chance(25, "down");
        l.empty = hi <= lo;
        long count = l.empty ? 0 : (hi - 1 - lo) / step;
        String t = l.type;
        String i = l.name;
        // != with the bound one step past the last index, a whole number of steps from the start (a marked parallel
        // loop whose bound depends on the outer index is refused, so triangular ones only go unannotated)
        boolean notEqual = !(triangular && annotated) && chance(15, "not-equal");
        if (notEqual) {
            features.add("not-equal");
        }
        if (down) {
            features.add("down");
            l.max = hi - 1;
            l.min = hi - 1 - count * step;
            String test = r.nextBoolean() ? i + " >= " + lo : i + " > " + (lo - 1);
            if (notEqual) {
                // from hi - 1 down by step: count + 1 iterations, or none when hi - 1 < lo
                test = step == 1 ? (l.empty ? i + " != Math.min(" + (lo - 1) + ", " + hiText + " - 1)" : i + " != " + (lo - 1))
                        : i + " != " + hiText + " - 1 - " + step + " * Math.max(0, (" + hiText + " - 1 - " + lo + " + " + step
                        + ") / " + step + ")";
            }
            String inc = step == 1 ? i + "--" : i + " -= " + step;
            return "for (@ANN" + t + " " + i + " = " + hiText + " - 1; " + test + "; " + inc + ")";
        }
        l.min = lo;
        l.max = lo + count * step;
        String test = r.nextBoolean() ? i + " < " + hiText : i + " <= " + hiText + " - 1";
        if (notEqual) {
            // from lo up by step: ceil((hi - lo) / step) iterations, or none when hi <= lo
            test = step == 1 ? (l.empty ? i + " != Math.max(" + hiText + ", " + lo + ")" : i + " != " + hiText)
                    : i + " != " + lo + " + " + step + " * Math.max(0, (" + hiText + " - " + lo + " + " + (step - 1)
                    + ") / " + step + ")";
        }
        String inc = step == 1 ? i + "++" : i + " += " + step;
        if (step != 1) {
            features.add("step");
        }
        return "for (@ANN" + t + " " + i + " = " + lo + "; " + test + "; " + inc + ")";
    }

    /** {@code @Loop} clauses for a level of the chain, and the threads it adds to the block. */
    private String[] clauses(int collapse, int blockSoFar) {
        List<String> c = new ArrayList<>();
        int threads = 1;
        switch (r.nextInt(6)) {
            case 0 -> c.add("independent = true");
            case 1 -> c.add("gang = " + (r.nextBoolean() ? "Loop.AUTO" : String.valueOf(1 + r.nextInt(7))));
            case 2 -> {
                int v = 1 << (1 + r.nextInt(6));
                threads = blockSoFar * v <= 1024 ? v : 1;
                c.add("vector = " + (threads == 1 ? "Loop.AUTO" : String.valueOf(v)));
            }
            case 3 -> {
                int v = 1 << (1 + r.nextInt(5));
                threads = blockSoFar * v <= 1024 ? v : 1;
                c.add("gang = Loop.AUTO");
                c.add("vector = " + (threads == 1 ? "Loop.AUTO" : String.valueOf(v)));
            }
            case 4 -> {
                int w = 2 << r.nextInt(2);
                int v = 1 << (1 + r.nextInt(4));
                if (blockSoFar * v * w <= 1024) {
                    threads = v * w;
                    c.add("gang = Loop.AUTO");
                    c.add("worker = " + w);
                    c.add("vector = " + v);
                } else {
                    c.add("gang = Loop.AUTO");
                }
                features.add("worker");
            }
            default -> c.add("gang = Loop.AUTO");
        }
        if (collapse > 1) {
            c.add("collapse = " + collapse);
        }
        // AUTO vectors are 128, 4, 2 by axis: count them as 128 (a block over 1024 is a diagnostic, still fine)
        return new String[] {"@Loop(" + String.join(", ", c) + ") ", String.valueOf(Math.max(1, threads))};
    }

    // ------------------------------------------------------------------ statements

    private void local(String indent, String type, int depth) {
        String name = "t" + locals++;
        body.append(indent).append(type).append(" ").append(name).append(" = ").append(expr(type, depth)).append(";\n");
        scope.add(new Scalar(name, type));
    }

    /**
     * A sequential loop that is not counted, ended by a counter at most 6 and by random tests: a while loop whose test
     * has {@code &&}, a {@code while (true)} with breaks, or a {@code for} loop that breaks. Its value and counter stay
     * in scope for the statements after it.
     */
    private void whileLoop(String in) {
        features.add("while");
        String t = pick(TYPES);
        String v = "w" + locals++;
        String n = "w" + locals++;
        int limit = 1 + r.nextInt(6);
        body.append(in).append("int ").append(n).append(" = 0;\n");
        body.append(in).append(t).append(" ").append(v).append(" = ").append(expr(t, 2)).append(";\n");
        int mark = scope.size();
        scope.add(new Scalar(v, t));
        scope.add(new Scalar(n, "int"));
        String kin = in + "    ";
        int shape = r.nextInt(3);
        switch (shape) {
            case 0 -> body.append(in).append("while (").append(cond(1)).append(" && ").append(n).append(" < ")
                    .append(limit).append(") {\n");
            case 1 -> body.append(in).append("while (true) {\n").append(kin).append("if (").append(n).append(" >= ")
                    .append(limit).append(" || ").append(cond(1)).append(") {\n").append(kin).append("    break;\n")
                    .append(kin).append("}\n");
            default -> body.append(in).append("for (").append(n).append(" = 0; ").append(n).append(" < ").append(limit)
                    .append("; ").append(n).append("++) {\n");
        }
        body.append(kin).append(v).append(" = (").append(t).append(") (").append(v).append(" * ").append(constant(t))
                .append(" + ").append(expr(t, 2)).append(");\n");
        if (shape != 2) {
            body.append(kin).append(n).append("++;\n");
        }
        if (r.nextBoolean()) {
            body.append(kin).append("if (").append(cond(1)).append(") {\n").append(kin).append("    break;\n")
                    .append(kin).append("}\n");
        }
        body.append(in).append("}\n");
        scope.subList(mark, scope.size()).clear();
        scope.add(new Scalar(v, t));
        scope.add(new Scalar(n, "int"));
    }

    /**
     * An array allocated in the loop body ({@code new T[4..8]}), private to the iteration: filled by a loop with
     * constant bounds, updated at a constant subscript and at a masked one, and read at a masked subscript into a
     * local that stays in scope; sometimes cloned first.
     */
    private void privateArray(String in) {
        features.add("private");
        String t = pick(TYPES);
        String a = "p" + locals++;
        String q = "q" + locals++;
        String v = "pv" + locals++;
        int size = 4 + privateDice.nextInt(5);
        body.append(in).append(t).append("[] ").append(a).append(" = new ").append(t).append("[").append(size)
                .append("];\n");
        body.append(in).append("for (int ").append(q).append(" = 0; ").append(q).append(" < ").append(a)
                .append(".length; ").append(q).append("++) {\n");
        int mark = scope.size();
        scope.add(new Scalar(q, "int"));
        body.append(in).append("    ").append(a).append("[").append(q).append("] = (").append(t).append(") (")
                .append(expr(t, 2)).append(" + ").append(q).append(");\n");
        scope.subList(mark, scope.size()).clear();
        body.append(in).append("}\n");
        if (privateDice.nextBoolean()) {
            String b = "p" + locals++;
            body.append(in).append(t).append("[] ").append(b).append(" = ").append(a).append(".clone();\n");
            a = b;
        }
        body.append(in).append(a).append("[").append(privateDice.nextInt(size)).append("] += (").append(t)
                .append(") ").append(expr(t, 1)).append(";\n");
        body.append(in).append(a).append("[(").append(expr("int", 1)).append(") & 3] -= (").append(t).append(") ")
                .append(expr(t, 1)).append(";\n");
        body.append(in).append(t).append(" ").append(v).append(" = ").append(a).append("[(").append(expr("int", 1))
                .append(") & 3];\n");
        scope.add(new Scalar(v, t));
    }

    /** A construct the compiler cannot offload; the diagnostic must name it. */
    private void plant(String indent) {
        String name = "u" + locals++;
        // an operand javac cannot fold: the innermost index in scope
        String index = scope.stream().filter(s -> s.name().length() == 1 && "ijk".contains(s.name()))
                .reduce((a, b) -> b).map(Scalar::name).orElseThrow();
        switch (r.nextInt(6)) {
            case 0 -> {
                unsupported = "IEEEremainder";
                body.append(indent).append("double ").append(name).append(" = Math.IEEEremainder(").append(index).append(" + ").append(expr("double", 1)).append(", 3.0);\n");
            }
            case 1 -> {
                // scalb is not among the functions a kernel may call
                unsupported = "scalb";
                body.append(indent).append("double ").append(name).append(" = Math.scalb(").append(index).append(" + ").append(expr("double", 1)).append(", 3);\n");
            }
            case 2 -> {
                unsupported = "new";
                // a size known only at run time (a constant size up to 32 is a private array)
                body.append(indent).append("double ").append(name).append(" = new double[(((int) ").append(index)
                        .append(") & 3) + 1].length;\n");
            }
            case 3 -> {
                unsupported = "remainder";
                body.append(indent).append("double ").append(name).append(" = (").append(index).append(" + ").append(expr("double", 1)).append(") % 3.0;\n");
            }
            case 4 -> {
                // the class's own static methods are inlined; a recursive one cannot be
                unsupported = "recursive";
                body.append(indent).append("double ").append(name).append(" = twice(").append(index).append(" + ").append(expr("double", 1)).append(", 2);\n");
            }
            default -> {
                // not a plant any more: helper is inlined, and the nest must give Java's result
                body.append(indent).append("double ").append(name).append(" = helper(").append(index).append(" + ").append(expr("double", 1)).append(");\n");
            }
        }
        features.add(unsupported == null ? "inlined-call" : "unsupported-" + unsupported);
        scope.add(new Scalar(name, "double"));
    }

    /**
     * A store to {@code a} at a subscript injective in the first {@code named} loops (or, for the dependent
     * variants, not), of {@code value} or of a new expression.
     */
    private void store(String indent, Arr a, int named, boolean dropOuter, String dependence, String value,
                       String valueType) {
        List<L> in = new ArrayList<>(loops.subList(dropOuter ? 1 : 0, named));
        String[] known = subscripts.get(a);
        String lhs;
        String rhsRead = null;
        if (known != null) {
            lhs = known[0];
            rhsRead = known[1];
        } else if (a.twoD) {
            // row: the outer loop; column: the rest, injective
            L row = in.get(0);
            long rowOff = -row.min;
            a.maxRow = Math.max(a.maxRow, row.max + rowOff);
            String[] col = injective(in.subList(1, in.size()), a, 0);
            lhs = a.name + "[" + asInt(row.name + " + " + rowOff, row.type) + "][" + col[0] + "]";
        } else {
            long shift = "neighbour".equals(dependence) ? 1 : 0;
            String[] sub = injective(in, a, shift);
            lhs = a.name + "[" + sub[0] + "]";
            if (shift != 0) {
                rhsRead = a.name + "[" + sub[1] + "]";
            }
        }
        subscripts.put(a, new String[] {lhs, rhsRead});
        if (value == null) {
            valueType = a.elem;
            value = expr(a.elem, 3);
            if (rhsRead != null) {
                value = "(" + value + ") + " + cast(a.elem, a.elem, rhsRead);
            }
            if (scope.stream().anyMatch(s -> s.name().equals("carry"))) {
                value = cast("double", a.elem, "carry + " + cast(a.elem, "double", value));
            }
        }
        value = cast(valueType, a.elem, value);
        switch (r.nextInt(4)) {
            case 0 -> body.append(indent).append(lhs).append(" += ").append(value).append(";\n");
            case 1 -> body.append(indent).append(lhs).append(" = ").append(cast(a.elem, a.elem, lhs + " / 2")).append(" + ")
                    .append(value).append(";\n");
            default -> body.append(indent).append(lhs).append(" = ").append(value).append(";\n");
        }
    }

    /**
     * A subscript injective in {@code in} (innermost coefficient ±1 or 2, each outer one at least the span inside
     * it, as a literal or through the parameter {@code w}), shifted to start at 0; with {@code shift}, also the
     * subscript of the neighbouring element (index {@code shift} lower), both in range.
     */
    private String[] injective(List<L> in, Arr a, long shift) {
        List<String> terms = new ArrayList<>();
        long min = 0;
        long max = 0;
        long span = 1;
        boolean anyLong = false;
        for (int q = in.size() - 1; q >= 0; q--) {
            L l = in.get(q);
            anyLong |= l.type.equals("long");
            long coef;
            String coefText;
            if (q == in.size() - 1) {
                coef = r.nextInt(5) == 0 ? (r.nextBoolean() ? -1 : 2) : 1;
                coefText = String.valueOf(coef);
            } else {
                coef = span + (r.nextInt(3) == 0 ? r.nextInt(4) : 0);
                coefText = String.valueOf(coef);
                boolean overlap = "stride".equals(dependence) && !scalarParams.containsKey("w");
                if (overlap || !scalarParams.containsKey("w") && r.nextInt(3) == 0) {
                    if (overlap) {
                        coef = Math.max(0, span - 1 - r.nextInt(2));
                    }
                    scalarParams.put("w", new Nest.Param("w", "int", (int) coef));
                    coefText = "w";
                    features.add("stride-param");
                }
            }
            terms.add(coefText.equals("1") ? l.name : "(" + l.name + " * " + coefText + ")");
            long lo = coef >= 0 ? coef * l.min : coef * l.max;
            long hi = coef >= 0 ? coef * l.max : coef * l.min;
            min += lo;
            max += hi;
            span = max - min + 1;
        }
        long off = -min + shift + (r.nextInt(3) == 0 ? r.nextInt(3) : 0);
        String base = terms.isEmpty() ? "0" : String.join(" + ", terms);
        a.maxIndex = Math.max(a.maxIndex, max + off);
        String sub = asIntExpr(base + " + " + off, anyLong);
        String neighbour = asIntExpr(base + " + " + (off - shift), anyLong);
        return new String[] {sub, neighbour};
    }

    private static String asInt(String e, String type) {
        return asIntExpr(e, type.equals("long"));
    }

    private static String asIntExpr(String e, boolean isLong) {
        return isLong ? "(int) (" + e + ")" : e;
    }

    // ------------------------------------------------------------------ expressions

    Arr array(String name, String elem, boolean twoD, boolean output) {
        Arr a = new Arr();
        a.name = name;
        a.elem = twoD ? "double" : elem;
        a.twoD = twoD;
        a.output = output;
        arrays.add(a);
        if (twoD) {
            features.add("2d");
        }
        return a;
    }

    /** An input array to read, new or existing (at most three). */
    private Arr input() {
        List<Arr> inputs = arrays.stream().filter(a -> !a.output).toList();
        if (inputs.size() < 3 && (inputs.isEmpty() || r.nextInt(3) == 0)) {
            return array("b" + inputs.size(), pick(TYPES), chance(15, "2d"), false);
        }
        return inputs.get(r.nextInt(inputs.size()));
    }

    /** A read of an input array at an affine subscript of the loops in scope, in range by construction. */
    private String read(String type) {
        Arr a = input();
        String sub = affine(a, false);
        String access = a.twoD ? a.name + "[" + affine(a, true) + "][" + sub + "]" : a.name + "[" + sub + "]";
        return cast(a.elem, type, access);
    }

    private String affine(Arr a, boolean row) {
        List<String> terms = new ArrayList<>();
        long min = 0;
        long max = 0;
        boolean anyLong = false;
        for (Scalar s : scope) {
            L l = loops.stream().filter(x -> x.name.equals(s.name())).findFirst().orElse(null);
            if (l == null || r.nextInt(3) == 0) {
                continue;
            }
            long coef = new long[] {1, 1, 1, -1, 2, 3}[r.nextInt(6)];
            terms.add(coef == 1 ? l.name : "(" + l.name + " * " + coef + ")");
            anyLong |= l.type.equals("long");
            min += coef >= 0 ? coef * l.min : coef * l.max;
            max += coef >= 0 ? coef * l.max : coef * l.min;
        }
        long off = -min + r.nextInt(3);
        long top = max + off;
        if (row) {
            a.maxRow = Math.max(a.maxRow, top);
        } else {
            a.maxIndex = Math.max(a.maxIndex, top);
        }
        String base = terms.isEmpty() ? "" : String.join(" + ", terms) + " + ";
        return asIntExpr(base + off, anyLong);
    }

    private String cast(String from, String to, String e) {
        return from.equals(to) ? e : "((" + to + ") (" + e + "))";
    }

    private String constant(String t) {
        return switch (t) {
            case "int" -> r.nextInt(10) == 0 ? pick("2147483647", "(-2147483648)", "65536") : "(" + (r.nextInt(21) - 10) + ")";
            case "long" -> r.nextInt(10) == 0 ? pick("9223372036854775807L", "(-4294967296L)") : "(" + (r.nextInt(21) - 10) + "L)";
            case "float" -> r.nextInt(12) == 0 ? pick("Float.NaN", "(-0.0f)", "3.4e38f", "1.0e-40f")
                    : "(" + (float) (Math.round(r.nextGaussian() * 400) / 64.0) + "f)";
            default -> r.nextInt(12) == 0 ? pick("Double.NaN", "(-0.0)", "1.0e300", "4.9e-324", "Double.POSITIVE_INFINITY")
                    : "(" + Math.round(r.nextGaussian() * 400) / 64.0 + ")";
        };
    }

    private String leaf(String t) {
        int k = r.nextInt(10);
        if (k < 3) {
            return constant(t);
        }
        if (k < 7 || scope.isEmpty()) {
            return read(t);
        }
        Scalar s = scope.get(r.nextInt(scope.size()));
        return cast(s.type(), t, s.name());
    }

    private String call(String fn, String t, String x, String y) {
        return "Math." + fn + "(" + x + ", " + y + ")";
    }

    private String expr(String t, int depth) {
        exprBudget++;
        if (depth <= 0 || r.nextInt(4) == 0 || exprBudget > 60) {
            return leaf(t);
        }
        boolean integral = t.equals("int") || t.equals("long");
        int k = r.nextInt(integral ? 12 : 9);
        String x = expr(t, depth - 1);
        if (k == 0 && o.on("ternary")) {
            features.add("ternary");
            return "(" + cond(depth - 1) + " ? " + x + " : " + expr(t, depth - 1) + ")";
        }
        if (k == 1 && o.on("casts")) {
            String from = pick(TYPES);
            features.add("cast");
            return cast(from, t, expr(from, depth - 1));
        }
        if (k == 2 && o.on("math")) {
            features.add("math");
            String y = expr(t, depth - 1);
            return switch (r.nextInt(integral ? 3 : 6)) {
                case 0 -> call("min", t, x, y);
                case 1 -> call("max", t, x, y);
                case 2 -> "Math.abs(" + x + ")";
                case 3 -> cast("double", t, "Math.sqrt(Math.abs(" + x + "))");
                case 4 -> cast("double", t, "Math.floor(" + x + ")");
                default -> "Math.fma(" + x + ", " + y + ", " + expr(t, depth - 1) + ")";
            };
        }
        String y = expr(t, depth - 1);
        if (!integral) {
            if (!o.on("float-ops")) {
                return "(" + x + " + " + y + ")";
            }
            return "(" + x + " " + pick("+", "-", "*", "/", "+", "*") + " " + y + ")";
        }
        String one = t.equals("long") ? "1L" : "1";
        return switch (k) {
            case 3, 4 -> {
                if (!o.on("division")) {
                    yield "(" + x + " - " + y + ")";
                }
                features.add("division");
                String op = pick("/", "%");
                if ("div0".equals(fault) && !divZeroPlanted) {
                    divZeroPlanted = true;
                    scalarParams.put("z", new Nest.Param("z", "int", 0));
                    yield "(" + x + " " + op + " z)";
                }
                yield "(" + x + " " + op + " (" + y + " | " + one + "))";
            }
            case 5 -> {
                if (!o.on("shifts")) {
                    yield "(" + x + " ^ " + y + ")";
                }
                features.add("shift");
                yield "(" + x + " " + pick("<<", ">>", ">>>") + " " + expr("int", depth - 1) + ")";
            }
            case 6 -> "(" + x + " " + pick("&", "|", "^") + " " + y + ")";
            default -> "(" + x + " " + pick("+", "-", "*") + " " + y + ")";
        };
    }

    private String cond(int depth) {
        if (depth > 0 && r.nextInt(4) == 0) {
            return "(" + cond(depth - 1) + " " + pick("&&", "||") + " " + cond(depth - 1) + ")";
        }
        String t = pick(TYPES);
        return "(" + expr(t, depth) + " " + pick("<", "<=", ">", ">=", "==", "!=") + " " + expr(t, depth) + ")";
    }

    // ------------------------------------------------------------------ the call's values

    Nest finish(boolean annotate) {
        Random v = new Random(seed ^ 0x5DEECE66DL);
        if ("div0".equals(fault) && !divZeroPlanted) {
            fault = null;
        }
        List<Nest.Param> params = new ArrayList<>();
        Arr shortened = null;
        if ("index".equals(fault)) {
            List<Arr> readable = arrays.stream().filter(a -> !a.twoD && a.planes < 0 && a.sameAs == null
                    && a.maxIndex >= 0).toList();
            shortened = readable.isEmpty() ? null : readable.get(v.nextInt(readable.size()));
            if (shortened == null) {
                fault = null;
            }
        }
        StringBuilder sig = new StringBuilder();
        for (Arr a : arrays) {
            int len = (int) Math.max(0, a.maxIndex + 1);
            len = a == shortened ? len - 1 : len + v.nextInt(3);
            Object value;
            if (a.sameAs != null) {
                value = new Nest.Same(a.sameAs);
            } else if (a.planes >= 0) {
                double[][][] g = new double[(int) a.planes][(int) Math.max(0, a.maxRow + 1)][];
                for (double[][] plane : g) {
                    for (int i = 0; i < plane.length; i++) {
                        plane[i] = (double[]) values("double", len, v);
                    }
                }
                value = g;
            } else if (a.twoD) {
                double[][] g = new double[(int) Math.max(0, a.maxRow + 1)][];
                for (int i = 0; i < g.length; i++) {
                    g[i] = (double[]) values("double", len, v);
                }
                value = g;
            } else {
                value = values(a.elem, len, v);
            }
            params.add(new Nest.Param(a.name, a.elem + (a.planes >= 0 ? "[][][]" : a.twoD ? "[][]" : "[]"), value));
        }
        params.addAll(scalarParams.values());
        for (Nest.Param p : params) {
            sig.append(sig.length() == 0 ? "" : ", ").append(p.type()).append(" ").append(p.name());
        }
        String name = Nest.methodName(seed);
        String src = "    // seed " + seed + "\n    @Kernels\n    public static void " + name + "(" + sig + ") {\n" + body + "    }\n";
        if (fault != null) {
            features.add("fault-" + fault);
        } else {
            features.removeIf(f -> f.startsWith("fault-"));
        }
        return new Nest(seed, name, src, List.copyOf(params), unsupported, fault, annotate && features.contains("annotated"),
                Set.copyOf(features));
    }

    private static Object values(String elem, int len, Random v) {
        switch (elem) {
            case "int" -> {
                int[] a = new int[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v.nextInt(8) == 0 ? v.nextInt() : v.nextInt(201) - 100;
                }
                return a;
            }
            case "long" -> {
                long[] a = new long[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v.nextInt(8) == 0 ? v.nextLong() : v.nextInt(2001) - 1000;
                }
                return a;
            }
            case "float" -> {
                float[] a = new float[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v.nextInt(20) == 0 ? special(v) : (float) (v.nextGaussian() * 10);
                }
                return a;
            }
            default -> {
                double[] a = new double[len];
                for (int i = 0; i < len; i++) {
                    a[i] = v.nextInt(20) == 0 ? special(v) : v.nextGaussian() * 10;
                }
                return a;
            }
        }
    }

    private static float special(Random v) {
        return new float[] {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 1e-42f, 3e38f}[v.nextInt(7)];
    }
}
