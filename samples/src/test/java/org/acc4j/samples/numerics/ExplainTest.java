package org.acc4j.samples.numerics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.acc4j.compiler.ir.Stmt;
import org.acc4j.compiler.site.ClassRewriter;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.PlanReport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The compile-time decisions on the real-code samples, without a GPU: every loop the samples' nest list calls
 * parallel or sequential is inside a nest that runs on the device, and every loop it calls host is not; and
 * {@code java -jar acc.jar explain --json} prints them for the whole package.
 */
class ExplainTest {
    static byte[] bytes(String internalName) {
        try (InputStream in = ExplainTest.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    /** The loop lines inside each offloaded nest, per Class.method. */
    static Map<String, Set<Integer>> offloadedLines(List<String> report) throws Exception {
        Map<String, Set<Integer>> out = new HashMap<>();
        String pkg = "org/acc4j/samples/numerics/";
        for (String c : List.of("CG", "MG", "Jacobi2D", "Heat2D", "SparseCompRow", "LU", "FFT", "Mandelbrot", "NBody",
                "Particles", "Dense", "FourierSeries", "Linpack", "Julia")) {
            for (MethodPlan p : ClassRewriter.plans(bytes(pkg + c), ExplainTest::bytes)) {
                report.addAll(PlanReport.lines(p));
                Set<Integer> lines = out.computeIfAbsent(c + "." + p.name(), k -> new HashSet<>());
                for (MethodPlan.Site s : p.sites()) {
                    for (var k : s.compiled().method().kernels()) {
                        loops(List.of(k.region().loop()), lines);
                    }
                }
            }
        }
        return out;
    }

    /** Every source line a nest's statements come from. */
    static void loops(List<Stmt> stmts, Set<Integer> lines) {
        for (Stmt s : stmts) {
            lines.add(s.line());
            if (s instanceof Stmt.For f) {
                lines.add(f.line());
                loops(f.body(), lines);
            } else if (s instanceof Stmt.If i) {
                loops(i.then(), lines);
                loops(i.otherwise(), lines);
            } else if (s instanceof Stmt.While w) {
                lines.add(w.line());
                loops(w.body(), lines);
            }
        }
    }

    @Test
    void everyParallelNestOfTheSamplesIsOnTheDevice() throws Exception {
        List<String> report = new ArrayList<>();
        Map<String, Set<Integer>> device = offloadedLines(report);
        List<String> wrong = new ArrayList<>();
        try (InputStream in = ExplainTest.class.getResourceAsStream("/numerics-nests.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String l = line.replaceFirst("#.*", "").trim();
                if (l.isEmpty()) {
                    continue;
                }
                String[] f = l.split("\\s+");
                int at = Integer.parseInt(f[1]);
                boolean on = device.getOrDefault(f[0], Set.of()).contains(at);
                if (on != !f[2].equals("host")) {
                    wrong.add(f[0] + " line " + at + " (" + f[2] + ") is " + (on ? "" : "not ") + "on the device");
                }
            }
        }
        assertTrue(wrong.isEmpty(), () -> String.join("\n", wrong) + "\n\n" + String.join("\n", report));
    }

    @Test
    void everyNestOfTheOtherSamplesIsOnTheDevice() throws Exception {
        List<String> host = new ArrayList<>();
        int nests = 0;
        Path root = Path.of("target/classes/org/acc4j/samples");
        try (var files = Files.list(root)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".class")).sorted().toList()) {
                for (MethodPlan p : ClassRewriter.plans(Files.readAllBytes(f), ExplainTest::bytes)) {
                    for (MethodPlan.Nest n : p.nests()) {
                        nests++;
                        if (!n.offloaded()) {
                            host.add(p.displayName() + ":" + n.line() + ": " + n.reasons());
                        }
                    }
                }
            }
        }
        assertTrue(nests > 40, "nests found: " + nests);
        assertTrue(host.isEmpty(), () -> String.join("\n", host));
    }

    @Test
    void mgsNormHasItsSumAndItsMaximumWrittenAsAnIfAsReductions() throws Exception {
        List<String> found = new ArrayList<>();
        for (MethodPlan p : ClassRewriter.plans(bytes("org/acc4j/samples/numerics/MG"), ExplainTest::bytes)) {
            if (p.name().equals("norm2u3")) {
                for (MethodPlan.Site s : p.sites()) {
                    for (var k : s.compiled().method().kernels()) {
                        k.region().reductions().forEach(r -> found.add(r.toString()));
                    }
                }
            }
        }
        assertEquals(List.of("reduction(+:s)", "reduction(max:max)"), found);
    }

    @Test
    void explainPrintsThePlansAsJson() throws Exception {
        Path agent = Path.of(System.getProperty("acc4j.agent.jar", "../acc-agent/target/acc.jar"));
        Assumptions.assumeTrue(Files.isRegularFile(agent), "no agent jar at " + agent.toAbsolutePath()
                + ": run mvn verify from the root to package it first");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = String.join(File.pathSeparator, "../acc-annotations/target/classes", "target/classes");
        Process p = new ProcessBuilder(java, "-jar", agent.toString(), "explain", "--json", "--class-path", cp,
                "org.acc4j.samples.numerics.Jacobi2D", "org.acc4j.samples.numerics.LU").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("{\"methods\":["), out);
        assertTrue(out.contains("\"class\":\"org.acc4j.samples.numerics.Jacobi2D\",\"method\":\"solve\""), out);
        assertTrue(out.contains("\"offloaded\":true"), out);
        assertTrue(out.contains("a search for the first index of the greatest t (jp = i)"), out);
        assertTrue(out.contains("\"kernel\":\"acc_Jacobi2D_solve_L"), out);
    }
}
