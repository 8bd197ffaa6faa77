package org.acc4j.jmh;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.plan.HostNest;
import org.acc4j.runtime.launch.Multicore;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * acc4j's multicore target: the sample's {@code @Kernels} method (parameter {@code variant}) compiled as the agent
 * compiles it, each nest run as generated JVM bytecode in chunks on the target's pool of {@code ACC_NUM_CORES} threads
 * (every core when unset), exactly as a launch site runs it where there is no GPU; driven directly, so that it runs in
 * the same JVM as the GPU modes. Data is the host's: nothing moves. The setup checks one call against plain Java
 * (output arrays bit for bit; a reduction's value within the sample's tolerance) before anything is timed. The
 * compiler and runtime classes come from {@code acc.jar} ({@code -javaagent}).
 */
public abstract class MulticoreState {
    private final Sample sample;
    Workload workload;
    Kernel kernel;
    Object[] args;
    private HostNest kernels;
    private Multicore pool;

    protected MulticoreState(Sample sample) {
        this.sample = sample;
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        setUp(params.getParam("size"), params.getParam("variant"));
    }

    void setUp(String size, String variant) {
        workload = Workload.of(sample, size);
        kernel = sample.offloaded().apply(variant);
        args = workload.freshArgs();
        try {
            kernels = HostNest.of(compile(kernel.method()));
        } catch (HostNest.Untranslated u) {
            throw new IllegalStateException(kernel + " is not translated for the multicore target: " + u.getMessage()
                    + ": not timed", u);
        }
        pool = new Multicore(threads(), chunksPerThread(), null, null);
        workload.clearOutputs(args);
        workload.check(kernel.name() + " multicore", args, run());
        System.out.println("# " + kernel + " at " + workload.size + " on the multicore target, " + pool.threads()
                + " threads, " + pool.chunksPerThread() + " chunks per thread ("
                + HostNest.REDUCTION_CHUNKS_PER_THREAD + " with a reduction)" + (workload.sampled() ? ", checked on " + Workload.SAMPLES + " sampled elements"
                : ", checked in full"));
    }

    /** {@code ACC_NUM_CORES} ({@code -Dacc.num.cores}), else the available processors. */
    static int threads() {
        String v = System.getProperty("acc.num.cores", System.getenv("ACC_NUM_CORES"));
        return v == null || v.isBlank() ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(v.trim());
    }

    /**
     * {@code -Dacc4j.chunks.per.thread=K}: the chunks per thread of each nest's outermost parallel level (a nest without
     * a reduction), for measuring the chunking; {@link HostNest#CHUNKS_PER_THREAD}, the runtime's, when unset.
     */
    static int chunksPerThread() {
        String v = System.getProperty("acc4j.chunks.per.thread");
        return v == null || v.isBlank() ? HostNest.CHUNKS_PER_THREAD : Integer.parseInt(v.trim());
    }

    static CompiledMethod compile(Method m) {
        String resource = m.getDeclaringClass().getName().replace('.', '/') + ".class";
        byte[] bytes;
        try (InputStream in = m.getDeclaringClass().getClassLoader().getResourceAsStream(resource)) {
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
        String desc = MethodType.methodType(m.getReturnType(), m.getParameterTypes()).toMethodDescriptorString();
        Compiler.Result r = Compiler.compile(bytes, m.getName(), desc, 90);
        if (r instanceof Compiler.Host h) {
            throw new IllegalStateException(m.getName() + " stays on the host: " + h.reason() + ": not timed");
        }
        return ((Compiler.Offload) r).method();
    }

    /** One call. */
    public Object run() {
        return run(pool);
    }

    /** One call with its chunks on {@code on}. */
    Object run(HostNest.Pool on) {
        Object[] a = args;
        try {
            return kernels.run((s, self, args) -> {
                throw new IllegalStateException("the field " + s.name() + " (benchmark kernels take parameters)");
            }, null, a, on, null);
        } catch (HostNest.Refused r) {
            throw new IllegalStateException("the multicore target refused the call: " + r.getMessage(), r);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (pool != null) {
            pool.close();
            pool = null;
        }
    }
}
