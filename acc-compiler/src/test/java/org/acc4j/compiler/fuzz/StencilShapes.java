package org.acc4j.compiler.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzzer's stencil nests: neighbour reads at constant offsets, in the forms the marching pass and the bounds
 * proofs take and around their edges.
 *
 * <ul>
 *   <li>{@code stencil-2d}: flat {@code a[(i + di) * m + j + dj]}, 5-point, 9-point box or 9-point cross of radius 2;
 *   <li>{@code stencil-3d}: flat over planes, 7-point, 13-point (radius 2) or 27-point box, loops in any order;
 *   <li>{@code stencil-line}: taps along one axis only, on 1×N and N×1 grids;
 *   <li>{@code stencil-blur}: the window summed by two constant-trip inner loops with a weights array (3×3 or 5×5);
 *   <li>{@code stencil-rows}: 5- or 9-point over {@code double[][]}, or 7-point over planes that are flat rows
 *       ({@code a[k][i * m + j]});
 *   <li>{@code stencil-rank3}: over {@code double[][][]}, which the compiler refuses with a diagnostic.
 * </ul>
 *
 * Edges, each a feature of its own: grid sizes around the marching chunk and the blocks (so that trips are not
 * multiples of them), empty and single ranges; {@code stencil-inplace} (a Gauss-Seidel sweep: the array read is the
 * array written, a dependence the compiler must keep), {@code stencil-own} (the output's own element read too),
 * {@code stencil-alias} (the call passes the input as the output too: the runtime must refuse the launch),
 * {@code stencil-alias-read} (two inputs bound to one array, which is fine), {@code stencil-wrap} (a range one wider
 * along the fast axis: a flat subscript wraps into the next row, as Java allows), {@code fault-halo} (a range one
 * wider along the outer axis: the halo leaves the array, Java's exception is thrown by several iterations) and, from
 * {@link NestGenerator}, {@code fault-index} (an array one element short); {@code stencil-annotated} (a {@code @Loop}
 * clause on one loop of a flat stencil: not marched). Nests the marching pass must take carry
 * {@code stencil-marchable}.
 */
final class StencilShapes {
    private final NestGenerator g;
    private final Random d;
    private String elem = "double";
    private String edge = "none";

    StencilShapes(NestGenerator g, Random d) {
        this.g = g;
        this.d = d;
    }

    Nest generate() {
        int kind = d.nextInt(100);
        int e = d.nextInt(100);
        edge = e < 8 ? "alias" : e < 14 ? "alias-read" : e < 20 ? "inplace" : e < 26 ? "own" : e < 34 ? "halo"
                : e < 40 ? "wrap" : "none";
        elem = pickType();
        boolean rows = g.o.on("2d");
        if (kind < 30) {
            flat(2);
        } else if (kind < 55) {
            flat(3);
        } else if (kind < 68) {
            blur(rows && d.nextInt(4) == 0);
        } else if (kind < 82 && rows) {
            rows();
        } else if (kind < 86 && rows && g.o.on("unsupported")) {
            rank3();
        } else {
            line();
        }
        if (!"none".equals(edge) && !"halo".equals(edge)) {
            g.features.add("stencil-" + edge);
        }
        if (g.fault == null && d.nextInt(8) == 0) {
            g.fault = "index";
        }
        return g.finish(g.features.contains("annotated"));
    }

    /**
     * Sometimes (flat stencils whose loops are independent) a {@code @Loop} clause on one loop: the nest is then not
     * marched, and its mapping follows the clause.
     */
    private String annotation(int loop, int annotated) {
        if (loop != annotated) {
            return "";
        }
        g.features.add("annotated");
        g.features.add("stencil-annotated");
        String[] clauses = {"@Loop(independent = true) ", "@Loop(gang = Loop.AUTO) ", "@Loop(gang = Loop.AUTO, vector = 32) ",
            "@Loop(vector = 128) "};
        return clauses[d.nextInt(clauses.length)];
    }

    private String pickType() {
        int t = d.nextInt(20);
        return t < 12 ? "double" : t < 17 ? "float" : t < 19 ? "int" : "long";
    }

    /** A weight of the element type, as a literal. */
    private String weight() {
        String[] w = {"0.25", "0.5", "-1.0", "2.0", "0.125", "1.5", "-0.75"};
        return switch (elem) {
            case "int" -> String.valueOf(d.nextInt(7) - 3);
            case "long" -> (d.nextInt(7) - 3) + "L";
            case "float" -> w[d.nextInt(w.length)] + "f";
            default -> w[d.nextInt(w.length)];
        };
    }

    private int pick(int... v) {
        return v[d.nextInt(v.length)];
    }

    private int size(int... edges) {
        return NestGenerator.edgeSize(d, edges);
    }

    private void scalar(String name, int value) {
        g.scalarParams.put(name, new Nest.Param(name, "int", value));
    }

    /** Sums {@code terms} as Java would write them: weighted, or summed and scaled, or plain. */
    private String combine(List<String> terms) {
        StringBuilder s = new StringBuilder();
        switch (d.nextInt(3)) {
            case 0 -> {
                for (String t : terms) {
                    s.append(s.length() == 0 ? "" : " + ").append(weight()).append(" * ").append(t);
                }
            }
            case 1 -> {
                s.append("(").append(String.join(" + ", terms)).append(") * ").append(weight());
            }
            default -> {
                s.append(weight()).append(" * ").append(terms.get(0));
                if (terms.size() > 1) {
                    s.append(" + ").append(weight()).append(" * (").append(String.join(" + ", terms.subList(1, terms.size())))
                            .append(")");
                }
            }
        }
        return s.toString();
    }

    private static String offset(String v, int o) {
        return o == 0 ? v : o > 0 ? v + " + " + o : v + " - " + -o;
    }

    private static String paren(String v, int o) {
        return o == 0 ? v : "(" + offset(v, o) + ")";
    }

    /** Taps of a stencil of {@code dims} dimensions: the cross of {@code radius}, or the box of radius 1. */
    private static List<int[]> taps(int dims, int radius, boolean box) {
        List<int[]> t = new ArrayList<>();
        if (box) {
            for (int q = 0; q < (int) Math.pow(3, dims); q++) {
                int[] o = new int[dims];
                int r = q;
                for (int x = dims - 1; x >= 0; x--) {
                    o[x] = r % 3 - 1;
                    r /= 3;
                }
                t.add(o);
            }
            return t;
        }
        t.add(new int[dims]);
        for (int x = 0; x < dims; x++) {
            for (int r = 1; r <= radius; r++) {
                for (int s : new int[] {-r, r}) {
                    int[] o = new int[dims];
                    o[x] = s;
                    t.add(o);
                }
            }
        }
        return t;
    }

    /**
     * A flat 2D or 3D stencil: {@code o[c] = f(a[c + offsets])} over the interior, with the edges above; marchable
     * when its loops count up with {@code <} from constants, its output is not read and no dimension is bound by
     * {@code <=}.
     */
    private void flat(int dims) {
        g.features.add("stencil-" + dims + "d");
        String[] idx = dims == 3 ? new String[] {"k", "i", "j"} : new String[] {"i", "j"};
        String[] sizes = dims == 3 ? new String[] {"p", "n", "m"} : new String[] {"n", "m"};
        int shape = d.nextInt(dims == 3 ? 7 : 3);
        boolean box = dims == 2 ? shape == 1 : shape == 6;
        int radius = dims == 2 ? (shape == 2 ? 2 : 1) : (shape >= 3 && shape < 6 ? 2 : 1);
        g.features.add("stencil-" + (box ? "box" : "r" + radius));
        int[] n = new int[dims];
        for (int x = 0; x < dims; x++) {
            // around the marching chunk (16 + halo) on the outer axis, around the blocks (8, 32, 128) inside
            if (dims == 2) {
                n[x] = x == 0 ? size(0, 1, 2, 3, 17, 18, 19, 20, 34, 35) : size(1, 2, 3, 33, 34, 129, 130, 131, 133);
            } else {
                // three dimensions: smaller, the interpreter runs every point
                n[x] = d.nextInt(4) == 0 ? d.nextInt(x == 0 ? 24 : 14)
                        : x == 0 ? pick(0, 1, 2, 3, 17, 18, 19, 20) : x == 1 ? pick(1, 2, 3, 9, 10, 11, 12) : pick(1, 2, 33, 34, 35, 36);
            }
            scalar(sizes[x], n[x]);
        }
        long len = 1;
        for (int v : n) {
            len *= v;
        }
        // the ranges: [radius, n - radius), one wider on one side for the wrap and halo edges
        int[] lo = new int[dims];
        String[] hi = new String[dims];
        for (int x = 0; x < dims; x++) {
            lo[x] = radius;
            hi[x] = sizes[x] + " - " + radius;
        }
        boolean marchable = !"own".equals(edge) && !"inplace".equals(edge);
        if ("halo".equals(edge)) {
            g.fault = "halo";
            if (d.nextBoolean()) {
                lo[0] = radius - 1;
            } else {
                hi[0] = radius == 1 ? sizes[0] : sizes[0] + " - " + (radius - 1);
            }
        } else if ("wrap".equals(edge)) {
            int x = 1 + d.nextInt(dims - 1);
            if (d.nextBoolean()) {
                lo[x] = radius - 1;
            } else {
                hi[x] = radius == 1 ? sizes[x] : sizes[x] + " - " + (radius - 1);
            }
        }
        String[] cond = new String[dims];
        for (int x = 0; x < dims; x++) {
            cond[x] = "<";
            if (d.nextInt(10) == 0) {
                // the same range with <=: the marching pass wants <
                cond[x] = "<=";
                hi[x] = hi[x] + " - 1";
                marchable &= x != 0;
            }
        }
        // loop order: outer to inner, a permutation of the axes
        int[] order = new int[dims];
        for (int x = 0; x < dims; x++) {
            order[x] = x;
        }
        if (d.nextInt(3) == 0) {
            for (int x = dims - 1; x > 0; x--) {
                int y = d.nextInt(x + 1);
                int t = order[x];
                order[x] = order[y];
                order[y] = t;
            }
            g.features.add("stencil-order");
        }
        String in = "a";
        String out = "inplace".equals(edge) ? "a" : "o";
        g.shapeArray("a", elem, false, "inplace".equals(edge), 1, len);
        String second = null;
        if ("alias-read".equals(edge)) {
            second = "b";
            NestGenerator.Arr b = g.shapeArray("b", elem, false, false, 1, len);
            b.sameAs = "a";
        }
        if (!"inplace".equals(edge)) {
            NestGenerator.Arr o = g.shapeArray("o", elem, false, true, 1, len);
            if ("alias".equals(edge)) {
                o.sameAs = "a";
            }
        }
        // the subscript of the centre: written out, or a local
        boolean local = d.nextBoolean();
        String centre = dims == 3 ? (d.nextBoolean() ? "(k * n + i) * m + j" : "k * n * m + i * m + j") : "i * m + j";
        StringBuilder s = new StringBuilder();
        String indent = "        ";
        // on the outermost loop (a clause on an inner one leaves the outer loops sequential around it: a diagnostic)
        int annotated = g.o.on("annotations") && !"inplace".equals(edge) && d.nextInt(10) == 0 ? 0 : -1;
        marchable &= annotated < 0;
        for (int q = 0; q < dims; q++) {
            int x = order[q];
            s.append(indent).append("for (").append(annotation(q, annotated)).append("int ").append(idx[x]).append(" = ").append(lo[x]).append("; ").append(idx[x])
                    .append(" ").append(cond[x]).append(" ").append(hi[x]).append("; ").append(idx[x]).append("++) {\n");
            indent += "    ";
        }
        if (local) {
            s.append(indent).append("int c = ").append(centre).append(";\n");
        }
        List<String> terms = new ArrayList<>();
        // the marching pass wants a column: one array read at two adjacent offsets along axis 0, the others equal
        java.util.Set<String> column = new java.util.HashSet<>();
        boolean adjacent = false;
        for (int[] t : taps(dims, radius, box)) {
            String array = second != null && d.nextBoolean() ? second : in;
            terms.add(array + "[" + subscript(dims, t, local, centre) + "]");
            String rest = array + java.util.Arrays.toString(java.util.Arrays.copyOfRange(t, 1, dims));
            adjacent |= column.contains(rest + (t[0] - 1)) || column.contains(rest + (t[0] + 1));
            column.add(rest + t[0]);
        }
        marchable &= adjacent;
        String value = combine(terms);
        String store = local ? "c" : centre;
        if ("own".equals(edge)) {
            value = out + "[" + store + "] * " + weight() + " + " + value;
        }
        s.append(indent).append(out).append("[").append(store).append("] = ").append(value).append(";\n");
        for (int q = dims - 1; q >= 0; q--) {
            indent = indent.substring(4);
            s.append(indent).append("}\n");
        }
        g.body.append(s);
        if (marchable) {
            g.features.add("stencil-marchable");
        }
    }

    /** The subscript of tap {@code t}: from the local centre {@code c}, or written out per axis. */
    private static String subscript(int dims, int[] t, boolean local, String centre) {
        if (local) {
            StringBuilder s = new StringBuilder("c");
            String[] stride = dims == 3 ? new String[] {"n * m", "m", ""} : new String[] {"m", ""};
            for (int x = 0; x < dims; x++) {
                if (t[x] != 0) {
                    int a = Math.abs(t[x]);
                    String unit = stride[x].isEmpty() ? String.valueOf(a) : (a == 1 ? "" : a + " * ") + stride[x];
                    s.append(t[x] > 0 ? " + " : " - ").append(unit);
                }
            }
            return s.toString();
        }
        if (dims == 3) {
            return centre.startsWith("(") ? "(" + paren("k", t[0]) + " * n + " + offset("i", t[1]) + ") * m + "
                    + offset("j", t[2]) : paren("k", t[0]) + " * n * m + " + paren("i", t[1]) + " * m + " + offset("j", t[2]);
        }
        return paren("i", t[0]) + " * m + " + offset("j", t[1]);
    }

    /**
     * A blur: the window of radius 1 or 2 summed by two inner loops of constant trip count, weights read from a
     * table, flat or over rows.
     */
    private void blur(boolean rows) {
        g.features.add("stencil-blur");
        if (rows) {
            elem = "double";
        }
        int radius = 1 + d.nextInt(2);
        int k = 2 * radius + 1;
        int n = size(0, 1, 2, 4, 5, 6, 19, 20, 21);
        int m = size(1, 4, 5, 6, 33, 36, 37, 131, 132);
        scalar("n", n);
        scalar("m", m);
        g.shapeArray("a", elem, rows, false, n, m);
        g.shapeArray("w", elem, false, false, 1, (long) k * k);
        NestGenerator.Arr o = g.shapeArray("o", elem, rows, true, n, m);
        if ("alias".equals(edge)) {
            o.sameAs = "a";
        } else if (!"halo".equals(edge)) {
            edge = "none";
        }
        boolean centred = d.nextBoolean();
        String lo = String.valueOf(radius);
        String hiI = "n - " + radius;
        if ("halo".equals(edge)) {
            g.fault = "halo";
            if (d.nextBoolean()) {
                lo = String.valueOf(radius - 1);
            } else {
                hiI = radius == 1 ? "n" : "n - " + (radius - 1);
            }
        }
        String wi = centred ? "(di + " + radius + ") * " + k + " + dj + " + radius : "di * " + k + " + dj";
        String ai = centred ? "i + di" : "i + di - " + radius;
        String aj = centred ? "j + dj" : "j + dj - " + radius;
        String read = rows ? "a[" + ai + "][" + aj + "]" : "a[(" + ai + ") * m + " + aj + "]";
        String store = rows ? "o[i][j]" : "o[i * m + j]";
        String tapLo = centred ? String.valueOf(-radius) : "0";
        String tapCond = centred ? " <= " + radius : " < " + k;
        String zero = switch (elem) {
            case "float" -> "0.0f";
            case "double" -> "0.0";
            case "long" -> "0L";
            default -> "0";
        };
        g.body.append("        for (int i = ").append(lo).append("; i < ").append(hiI).append("; i++) {\n")
                .append("            for (int j = ").append(radius).append("; j < m - ").append(radius).append("; j++) {\n")
                .append("                ").append(elem).append(" s = ").append(zero).append(";\n")
                .append("                for (int di = ").append(tapLo).append("; di").append(tapCond).append("; di++) {\n")
                .append("                    for (int dj = ").append(tapLo).append("; dj").append(tapCond).append("; dj++) {\n")
                .append("                        s += w[").append(wi).append("] * ").append(read).append(";\n")
                .append("                    }\n                }\n")
                .append("                ").append(store).append(" = s;\n")
                .append("            }\n        }\n");
    }

    /** A 5- or 9-point stencil over {@code double[][]} rows, or a 7-point one over planes that are flat rows. */
    private void rows() {
        g.features.add("stencil-rows");
        if (d.nextInt(3) == 0) {
            planes();
            return;
        }
        elem = "double";
        boolean box = d.nextBoolean();
        int n = size(0, 1, 2, 3, 9, 10, 17, 18, 34);
        int m = size(1, 2, 3, 33, 34, 129, 130);
        scalar("n", n);
        scalar("m", m);
        boolean inplace = "inplace".equals(edge);
        if ("wrap".equals(edge) || "alias-read".equals(edge)) {
            edge = "none";
        }
        g.shapeArray("a", elem, true, inplace, n, m);
        String out = inplace ? "a" : "o";
        if (!inplace) {
            NestGenerator.Arr o = g.shapeArray("o", elem, true, true, n, m);
            if ("alias".equals(edge)) {
                o.sameAs = "a";
            }
        }
        String loI = "1";
        String hiI = "n - 1";
        String loJ = "1";
        String hiJ = "m - 1";
        if ("halo".equals(edge)) {
            g.fault = "halo";
            switch (d.nextInt(3)) {
                case 0 -> loJ = "0";
                case 1 -> hiI = "n";
                default -> loI = "0";
            }
        }
        List<String> terms = new ArrayList<>();
        for (int[] t : taps(2, 1, box)) {
            terms.add("a[" + offset("i", t[0]) + "][" + offset("j", t[1]) + "]");
        }
        String value = combine(terms);
        if ("own".equals(edge)) {
            value = out + "[i][j] * " + weight() + " + " + value;
        }
        g.body.append("        for (int i = ").append(loI).append("; i < ").append(hiI).append("; i++) {\n")
                .append("            for (int j = ").append(loJ).append("; j < ").append(hiJ).append("; j++) {\n")
                .append("                ").append(out).append("[i][j] = ").append(value).append(";\n")
                .append("            }\n        }\n");
    }

    /** A 3D 7-point stencil over {@code double[][]} whose rows are flat planes: {@code a[k][i * m + j]}. */
    private void planes() {
        elem = "double";
        int p = size(0, 1, 2, 3, 17, 18, 19);
        int n = size(1, 2, 3, 9, 10);
        int m = size(1, 2, 3, 33, 34);
        scalar("p", p);
        scalar("n", n);
        scalar("m", m);
        boolean inplace = "inplace".equals(edge);
        if ("wrap".equals(edge) || "alias-read".equals(edge)) {
            edge = "none";
        }
        g.shapeArray("a", elem, true, inplace, p, (long) n * m);
        String out = inplace ? "a" : "o";
        if (!inplace) {
            NestGenerator.Arr o = g.shapeArray("o", elem, true, true, p, (long) n * m);
            if ("alias".equals(edge)) {
                o.sameAs = "a";
            }
        }
        String loK = "1";
        String hiK = "p - 1";
        if ("halo".equals(edge)) {
            g.fault = "halo";
            if (d.nextBoolean()) {
                loK = "0";
            } else {
                hiK = "p";
            }
        }
        List<String> terms = new ArrayList<>();
        for (int[] t : taps(3, 1, false)) {
            String within = t[1] != 0 ? paren("i", t[1]) + " * m + j" : "i * m + " + offset("j", t[2]);
            terms.add("a[" + offset("k", t[0]) + "][" + within + "]");
        }
        String value = combine(terms);
        if ("own".equals(edge)) {
            value = out + "[k][i * m + j] * " + weight() + " + " + value;
        }
        g.body.append("        for (int k = ").append(loK).append("; k < ").append(hiK).append("; k++) {\n")
                .append("            for (int i = 1; i < n - 1; i++) {\n")
                .append("                for (int j = 1; j < m - 1; j++) {\n")
                .append("                    ").append(out).append("[k][i * m + j] = ").append(value).append(";\n")
                .append("                }\n            }\n        }\n");
    }

    /** A 7-point stencil over {@code double[][][]}, which the compiler refuses, naming the parameter's type. */
    private void rank3() {
        g.features.add("stencil-rank3");
        elem = "double";
        edge = "none";
        int p = size(0, 1, 3, 4);
        int n = size(1, 3, 4);
        int m = size(1, 3, 5);
        scalar("p", p);
        scalar("n", n);
        scalar("m", m);
        for (String name : new String[] {"a", "o"}) {
            NestGenerator.Arr a = g.shapeArray(name, elem, true, name.equals("o"), n, m);
            a.planes = Math.max(0, p);
        }
        g.unsupported = "[][][]";
        g.body.append("        for (int k = 1; k < p - 1; k++) {\n            for (int i = 1; i < n - 1; i++) {\n")
                .append("                for (int j = 1; j < m - 1; j++) {\n")
                .append("                    o[k][i][j] = a[k][i][j] * ").append(weight()).append(" + a[k - 1][i][j] + a[k + 1][i][j]")
                .append(" + a[k][i - 1][j] + a[k][i + 1][j] + a[k][i][j - 1] + a[k][i][j + 1];\n")
                .append("                }\n            }\n        }\n");
    }

    /**
     * Taps along one axis of a flat grid: along j on 1×N-like grids (not marched: no column along i), or along i on
     * N×1-like grids (marchable).
     */
    private void line() {
        g.features.add("stencil-line");
        boolean alongI = d.nextBoolean();
        int n = alongI ? size(2, 3, 17, 18, 19, 35) : size(0, 1, 1, 2);
        int m = alongI ? size(1, 1, 2, 3) : size(1, 2, 3, 129, 130, 300);
        scalar("n", n);
        scalar("m", m);
        if (!"alias".equals(edge) && !"own".equals(edge)) {
            edge = "none";
        }
        long len = (long) n * m;
        g.shapeArray("a", elem, false, false, 1, len);
        NestGenerator.Arr o = g.shapeArray("o", elem, false, true, 1, len);
        if ("alias".equals(edge)) {
            o.sameAs = "a";
        }
        int radius = 1 + d.nextInt(2);
        List<String> terms = new ArrayList<>();
        for (int t = -radius; t <= radius; t++) {
            terms.add(alongI ? "a[" + paren("i", t) + " * m + j]" : "a[i * m + " + offset("j", t) + "]");
        }
        String value = combine(terms);
        if ("own".equals(edge)) {
            value = "o[i * m + j] * " + weight() + " + " + value;
        }
        String ri = alongI ? String.valueOf(radius) : "0";
        String hiI = alongI ? "n - " + radius : "n";
        String rj = alongI ? "0" : String.valueOf(radius);
        String hiJ = alongI ? "m" : "m - " + radius;
        g.body.append("        for (int i = ").append(ri).append("; i < ").append(hiI).append("; i++) {\n")
                .append("            for (int j = ").append(rj).append("; j < ").append(hiJ).append("; j++) {\n")
                .append("                o[i * m + j] = ").append(value).append(";\n")
                .append("            }\n        }\n");
        if (alongI && !"own".equals(edge)) {
            g.features.add("stencil-marchable");
        }
    }
}
