package org.acc4j.samples.bench;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Where a program's calling thread spends its time, without a profiler: runs {@code main} of the class named first
 * with the other arguments while a daemon thread samples the calling thread's stack every {@code acc4j.sample.us}
 * microseconds (default 200), then prints the methods most often on top of the stack (self) and anywhere on it
 * (total), each as a share of the samples whose stack holds a frame of a class whose name starts with {@code
 * acc4j.sample.filter} (default {@code org.acc4j.runtime}). Samples are taken at safepoints, so a share is a rough
 * guide, not a measurement.
 *
 * <p>Run: {@code java -javaagent:acc.jar -cp samples.jar:test-classes org.acc4j.samples.bench.SampleTop Main args...}.
 */
public final class SampleTop {
    private SampleTop() {
    }

    public static void main(String[] args) throws Throwable {
        String filter = System.getProperty("acc4j.sample.filter", "org.acc4j.runtime");
        long periodNs = 1000L * Long.getLong("acc4j.sample.us", 200);
        int lines = Integer.getInteger("acc4j.sample.lines", 40);
        Thread target = Thread.currentThread();
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        int[] samples = {0};
        boolean[] stop = {false};
        Thread sampler = new Thread(() -> {
            while (!stop[0]) {
                StackTraceElement[] frames = target.getStackTrace();
                boolean ours = false;
                for (StackTraceElement f : frames) {
                    ours |= f.getClassName().startsWith(filter);
                }
                if (ours && frames.length > 0) {
                    synchronized (self) {
                        samples[0]++;
                        self.merge(name(frames[0]), 1, Integer::sum);
                        Set<String> seen = new HashSet<>();
                        for (StackTraceElement f : frames) {
                            if (seen.add(name(f))) {
                                total.merge(name(f), 1, Integer::sum);
                            }
                        }
                    }
                }
                java.util.concurrent.locks.LockSupport.parkNanos(periodNs);
            }
        }, "sampler");
        sampler.setDaemon(true);
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        sampler.start();
        try {
            Class.forName(args[0]).getMethod("main", String[].class).invoke(null, (Object) rest);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        } finally {
            stop[0] = true;
            sampler.join();
            synchronized (self) {
                System.out.println(samples[0] + " samples with a frame of " + filter);
                print("self", self, samples[0], lines);
                print("total", total, samples[0], lines);
            }
        }
    }

    private static String name(StackTraceElement f) {
        return f.getClassName() + "." + f.getMethodName();
    }

    private static void print(String what, Map<String, Integer> counts, int samples, int lines) {
        System.out.println("== " + what);
        counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(lines)
                .forEach(e -> System.out.printf("%6.1f%%  %s%n", 100.0 * e.getValue() / Math.max(1, samples),
                        e.getKey()));
    }
}
