package org.acc4j.compiler.fuzz;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.Diagnostic;
import org.acc4j.compiler.KernelPlan;
import org.acc4j.compiler.Ptxas;
import org.acc4j.compiler.interp.KernelInterpreter;
import org.acc4j.compiler.plan.ArrayUse;
import org.acc4j.compiler.plan.MethodLaunch;
import org.acc4j.compiler.plan.ValueSource;

/**
 * Checks one nest: compiles it; a refusal must be a diagnostic naming the method and a construct (and the planted
 * construct, when there is one), never a crash; an offloaded nest runs as plain Java on one copy of its inputs and
 * on the kernel interpreter on another (with a small grid, so that threads stride, and a large one), and the two
 * must agree bit for bit, or throw the same exception with the same message, without a race.
 */
public final class Harness {
    /** Compute capability the interpreter side compiles for (the H100's). */
    public static final int SM = 90;

    private Harness() {
    }

    /** The compiler's result, or a failure when it crashed or refused the nest without a proper diagnostic. */
    public static Object compile(Nest nest, byte[] classFile) {
        Compiler.Result r;
        try {
            r = Compiler.compile(classFile, nest.method(), nest.descriptor(), SM);
        } catch (Throwable t) {
            return Outcome.failed("the compiler crashed: " + stack(t));
        }
        if (r instanceof Compiler.Host h) {
            Diagnostic d = h.reason();
            if (!nest.method().equals(d.method()) || d.construct() == null || d.construct().isBlank()
                    || !d.toString().contains(nest.method())) {
                return Outcome.failed("a diagnostic that names no method or construct: " + d);
            }
            // a nest can have another reason to stay on the host, found before the planted construct
            boolean named = nest.unsupported() == null || mentions(d.construct(), nest.unsupported());
            return new Outcome(Outcome.Kind.HOST, d.construct() + (named ? "" : " (before the planted " + nest.unsupported() + ")"));
        }
        if (nest.unsupported() != null) {
            return Outcome.failed("missing diagnostic: planted " + nest.unsupported() + " but the method was offloaded");
        }
        return ((Compiler.Offload) r).method();
    }

    /** Whether a diagnostic names the planted construct. */
    static boolean mentions(String construct, String planted) {
        return switch (planted) {
            case "new" -> construct.contains("allocation") || construct.contains("new");
            default -> construct.contains(planted);
        };
    }

    /**
     * Compiles {@code nest}, assembles its kernels with {@code ptxas} (when not null) and runs it on the
     * interpreter against plain Java.
     */
    public static Outcome interpret(Nest nest, Method plainJava, byte[] classFile, Path ptxas) {
        Object c = compile(nest, classFile);
        if (c instanceof Outcome o) {
            return o;
        }
        CompiledMethod m = (CompiledMethod) c;
        if (ptxas != null) {
            for (KernelPlan k : m.kernels()) {
                String rejected;
                try {
                    rejected = Ptxas.assemble(ptxas, k.entry(), k.ptx());
                } catch (IOException | InterruptedException e) {
                    rejected = "ptxas did not run: " + e;
                }
                if (rejected == null && k.unchecked() != null) {
                    try {
                        rejected = Ptxas.assemble(ptxas, k.unchecked().entry(), k.unchecked().ptx());
                    } catch (IOException | InterruptedException e) {
                        rejected = "ptxas did not run: " + e;
                    }
                }
                if (rejected != null) {
                    return Outcome.failed("ptxas rejects " + k.entry() + ": " + rejected);
                }
            }
        }
        Object[] expected = nest.args();
        Throwable javaThrew = plain(plainJava, expected);
        String shared = aliased(m, nest.args());
        if (shared != null) {
            return new Outcome(Outcome.Kind.HOST_AT_LAUNCH, shared);
        }
        Outcome last = null;
        for (int maxBlocks : new int[] {2, 1000}) {
            Object[] actual = nest.args();
            Throwable threw;
            try {
                KernelInterpreter.run(m, actual, maxBlocks);
                threw = null;
            } catch (KernelInterpreter.HostInstead h) {
                return new Outcome(Outcome.Kind.HOST_AT_LAUNCH, h.getMessage());
            } catch (KernelInterpreter.Race race) {
                return Outcome.failed("a race in a loop the compiler made parallel"
                        + (nest.annotated() ? " (annotated)" : " (no @Loop)") + ", " + maxBlocks + " blocks: "
                        + race.getMessage());
            } catch (RuntimeException | StackOverflowError e) {
                threw = e;
            }
            last = compare("interpreter (" + maxBlocks + " blocks per axis)", nest, expected, javaThrew, actual, threw);
            if (last.failed()) {
                return last;
            }
        }
        return last;
    }

    /**
     * Why the runtime would run the call on the host because one array is bound to two parameters and the method
     * writes it ({@code org.acc4j.runtime.data.Aliasing} makes this check before a launch, from the same
     * {@link MethodLaunch} uses), or null. The interpreter and the multicore harness run on the arrays themselves and
     * so must not run such a call.
     */
    public static String aliased(CompiledMethod m, Object[] args) {
        java.util.IdentityHashMap<Object, ArrayUse> seen = new java.util.IdentityHashMap<>();
        for (ArrayUse a : MethodLaunch.of(m).arrays()) {
            if (!(a.source() instanceof ValueSource.Argument arg)) {
                continue;
            }
            ArrayUse before = seen.putIfAbsent(args[arg.index()], a);
            if (before != null && (before.written() || a.written())) {
                return "the same array is both " + before.name() + " and " + a.name() + ", and the region writes it";
            }
        }
        return null;
    }

    /** Runs the plain Java method on {@code args}; what it threw, or null. */
    public static Throwable plain(Method plainJava, Object[] args) {
        try {
            plainJava.invoke(null, args);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Compares a device-side run with plain Java: the same exception (type and message), or no exception and
     * every element equal bit for bit. Arrays are not compared after an exception (Java has written the elements
     * before the failing iteration, the device nothing).
     */
    public static Outcome compare(String side, Nest nest, Object[] expected, Throwable javaThrew, Object[] actual,
                                  Throwable threw) {
        if (javaThrew != null || threw != null) {
            if (javaThrew == null) {
                return Outcome.failed(side + " threw where plain Java did not: " + stack(threw));
            }
            if (threw == null) {
                return Outcome.failed(side + " did not throw; plain Java threw " + javaThrew);
            }
            if (javaThrew.getClass() != threw.getClass() || !Objects.equals(javaThrew.getMessage(), threw.getMessage())
                    && !sameHalo(nest, javaThrew, threw)) {
                return Outcome.failed(side + " threw " + stack(threw) + "\nplain Java threw " + javaThrew);
            }
            return new Outcome(Outcome.Kind.THREW, threw.toString());
        }
        String diff = Nest.firstDifference(expected, actual, nest.params());
        if (diff != null) {
            return Outcome.failed(side + ": wrong value at " + diff);
        }
        return new Outcome(Outcome.Kind.OFFLOADED, side);
    }

    private static final java.util.regex.Pattern OUT_OF_BOUNDS =
            java.util.regex.Pattern.compile("Index (-?\\d+) out of bounds for length (\\d+)");

    /**
     * Whether two index exceptions of a nest whose halo leaves an array in several iterations ({@code fault-halo})
     * name the same array length and an index out of it: when several threads of a kernel fail, the first failure
     * recorded need not be the one Java's loop order meets first (the guide says so).
     */
    static boolean sameHalo(Nest nest, Throwable javaThrew, Throwable threw) {
        if (!"halo".equals(nest.fault()) || !(threw instanceof ArrayIndexOutOfBoundsException)) {
            return false;
        }
        java.util.regex.Matcher j = OUT_OF_BOUNDS.matcher(String.valueOf(javaThrew.getMessage()));
        java.util.regex.Matcher t = OUT_OF_BOUNDS.matcher(String.valueOf(threw.getMessage()));
        if (!j.matches() || !t.matches() || !j.group(2).equals(t.group(2))) {
            return false;
        }
        long index = Long.parseLong(t.group(1));
        return index < 0 || index >= Long.parseLong(t.group(2));
    }

    static String stack(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        String s = w.toString();
        return s.length() > 1500 ? s.substring(0, 1500) + "..." : s;
    }

    /** Counts of outcomes by kind and diagnostic, and the failing seeds. */
    public static final class Tally {
        public final Map<String, Integer> groups = new TreeMap<>();
        public final Map<Long, String> failures = new TreeMap<>();
        public final Map<String, Integer> features = new TreeMap<>();
        /** For the shape features ({@code tiling-*}, {@code stencil-*}): nests by outcome kind, in {@link Outcome.Kind}'s order. */
        public final Map<String, int[]> shapes = new TreeMap<>();
        public int nests;

        public synchronized void add(Nest nest, Outcome o) {
            nests++;
            groups.merge(o.group(), 1, Integer::sum);
            for (String f : nest.features()) {
                features.merge(f, 1, Integer::sum);
                if (f.startsWith("tiling-") || f.startsWith("stencil-")) {
                    shapes.computeIfAbsent(f, x -> new int[Outcome.Kind.values().length])[o.kind().ordinal()]++;
                }
            }
            if (o.failed()) {
                failures.put(nest.seed(), o.detail());
            }
        }

        public int count(Outcome.Kind k) {
            return groups.entrySet().stream().filter(e -> e.getKey().equals(k.name()) || e.getKey().startsWith(k.name() + ":"))
                    .mapToInt(Map.Entry::getValue).sum();
        }

        public String summary() {
            StringBuilder s = new StringBuilder(nests + " nests: " + count(Outcome.Kind.OFFLOADED) + " offloaded and matched, "
                    + count(Outcome.Kind.THREW) + " offloaded and threw as Java did, " + count(Outcome.Kind.HOST)
                    + " on the host with a diagnostic, " + count(Outcome.Kind.HOST_AT_LAUNCH)
                    + " sent to the host at launch, " + failures.size() + " failed\n");
            groups.forEach((g, n) -> s.append(String.format("  %5d  %s%n", n, g)));
            s.append("  features: ").append(features).append('\n');
            if (!shapes.isEmpty()) {
                s.append("  shapes (nests: matched, threw as Java, host, host at launch, failed):\n");
                shapes.forEach((f, k) -> s.append(String.format("  %5d  %-22s %5d %5d %5d %5d %5d%n",
                        java.util.Arrays.stream(k).sum(), f, k[0], k[1], k[2], k[3], k[4])));
            }
            failures.forEach((seed, why) -> s.append("  FAILED seed ").append(seed).append(": ")
                    .append(why.lines().limit(6).reduce((a, b) -> a + "\n      " + b).orElse("")).append('\n'));
            return s.toString();
        }
    }
}
