package org.acc4j.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Locale;
import org.acc4j.compiler.plan.HostCall;
import org.acc4j.compiler.plan.LaunchPlan;
import org.acc4j.compiler.plan.MethodLaunch;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.Planner;
import org.acc4j.runtime.data.CallFixtures;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The host's side of a launch site's call that needs no device, timed stage by stage on the CPU: the per-call work
 * the launcher asks of the compiler's plan for {@code addOne(a, n)} of the per-call harness (binding, the launch
 * checks and bounds before the launch, the clauses, the host program up to the launch with the trip count, the
 * bounds proof and the grid). Prints each stage's median nanoseconds and allocated bytes per call at n = 0, 1 and
 * 1024. Run: {@code java -cp <acc-runtime test and main classes, compiler, annotations, ASM>
 * org.acc4j.runtime.launch.PlanCallHarness [calls]}.
 */
public final class PlanCallHarness {
    private PlanCallHarness() {
    }

    private static byte[] bytes(String internalName) {
        try (InputStream in = PlanCallHarness.class.getClassLoader().getResourceAsStream(internalName + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
    }

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        ClassNode cn = new ClassNode();
        new ClassReader(bytes(CallFixtures.class.getName().replace('.', '/'))).accept(cn, 0);
        MethodPlan plan = null;
        for (MethodNode mn : cn.methods) {
            if (mn.name.equals("addOne")) {
                plan = Planner.plan(cn, mn, PlanCallHarness::bytes);
            }
        }
        MethodPlan.Site site = plan.sites().get(0);
        MethodLaunch ml = MethodLaunch.of(site.compiled().method());
        Sources sources = new Sources(CallFixtures.class);
        double[] a = new double[1024];
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        String[] stages = {"begin: launch checks and bounds (HostCall)", "clauses", "host program to the launch: trip,"
                + " proof, grid"};
        System.out.println("| stage | n | median ns | bytes per call |");
        System.out.println("| --- | ---: | ---: | ---: |");
        for (int n : new int[] {0, 1, 1024}) {
            // the site's values as the rewritten method passes them: its live-ins by the plan's order
            Object[] values = new Object[site.values()];
            for (int k = 0; k < site.liveIns().size(); k++) {
                values[k] = site.liveIns().get(k).descriptor().equals("[D") ? a : (Object) n;
            }
            Object[] arrays = {a};
            long[][] nanos = new long[3][calls];
            long[] bytes = new long[3];
            for (int i = 0; i < 2 * calls; i++) {
                boolean timed = i >= calls;
                long b0 = mx.getCurrentThreadAllocatedBytes();
                long t0 = System.nanoTime();
                HostCall call = ml.begin(sources, null, values);
                long t1 = System.nanoTime();
                long b1 = mx.getCurrentThreadAllocatedBytes();
                for (int d = 0; d < ml.data().size(); d++) {
                    ml.clause(d, a, call);
                }
                long t2 = System.nanoTime();
                long b2 = mx.getCurrentThreadAllocatedBytes();
                ml.run(call, (k, c) -> {
                    LaunchPlan lp = ml.kernel(k);
                    long trip = lp.trip(c);
                    if (trip != 0) {
                        boolean proven = lp.hasUnchecked() && lp.proven(c, arrays, rows -> 0);
                        lp.grid(c, proven, 528);
                    }
                    return NO_RESULTS;
                });
                long t3 = System.nanoTime();
                long b3 = mx.getCurrentThreadAllocatedBytes();
                if (timed) {
                    int j = i - calls;
                    nanos[0][j] = t1 - t0;
                    nanos[1][j] = t2 - t1;
                    nanos[2][j] = t3 - t2;
                    bytes[0] += b1 - b0;
                    bytes[1] += b2 - b1;
                    bytes[2] += b3 - b2;
                }
            }
            for (int s = 0; s < 3; s++) {
                Arrays.sort(nanos[s]);
                System.out.printf(Locale.ROOT, "| %s | %d | %d | %.1f |%n", stages[s], n, nanos[s][calls / 2],
                        (double) bytes[s] / calls);
            }
        }
    }

    private static final long[] NO_RESULTS = new long[0];
}
