package org.acc4j.compiler.fuzz;

import java.util.ArrayList;
import java.util.List;

/**
 * Consecutive seeds' nests as the static methods of one class, so that one javac run compiles many kernels.
 * Each method is compiled and offloaded on its own; a construct the compiler refuses in one does not affect the
 * others. Also holds the helper a planted call to the class's own method names.
 */
public record Batch(String className, List<Nest> nests) {
    public static final String PACKAGE = "fuzzgen";

    /** The nests of seeds {@code first .. first+count-1}. */
    public static Batch of(long first, int count, NestGenerator.Options options) {
        List<Nest> nests = new ArrayList<>();
        for (long s = first; s < first + count; s++) {
            nests.add(NestGenerator.generate(s, options));
        }
        return new Batch(className(first, count), List.copyOf(nests));
    }

    /** The class of the batch of seeds {@code first .. first+count-1}. */
    public static String className(long first, int count) {
        return PACKAGE + "." + (first < 0 ? "Bm" + (-first) : "B" + first) + "x" + count;
    }

    public String simpleName() {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    public String source() {
        StringBuilder s = new StringBuilder("package " + PACKAGE + ";\n\nimport org.acc4j.Kernels;\nimport org.acc4j.Loop;\n\n"
                + "public final class " + simpleName() + " {\n    static double helper(double x) {\n        return x * 0.5 + 1;\n    }\n\n"
                + "    static double twice(double x, int k) {\n        return k == 0 ? x : twice(x * 2, k - 1);\n    }\n\n");
        for (Nest n : nests) {
            s.append(n.source()).append('\n');
        }
        return s.append("}\n").toString();
    }
}
