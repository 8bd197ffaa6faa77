package org.acc4j.samples;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.acc4j.compiler.CompiledMethod;
import org.acc4j.compiler.Compiler;
import org.acc4j.compiler.cudac.CudaCRenderer;

/**
 * The samples' kernels as CUDA C ({@link CudaCRenderer}), and the PTX that nvcc made of some of them, stored under
 * {@code src/test/resources/cuda/} for the GPU test (the GPU machine has a driver but no nvcc). Each stored file
 * starts with the SHA-256 of the rendering it was compiled from, so a changed rendering fails
 * {@code CudaRenderingTest} until the PTX is made again ({@code -Dacc4j.updateGolden=true}, with nvcc).
 */
public final class RenderedKernels {
    /** Every sample class with {@code @Kernels} methods. */
    public static final List<Class<?>> SAMPLES = List.of(VectorAdd.class, Saxpy.class, Jacobi.class, Dgemm.class,
            Transpose.class, Gaussblur.class, Stencil.class, Laplacian.class, Wave13pt.class, Dot.class, Reduce.class);

    /** The kernels whose nvcc PTX is stored and run on the GPU: Class.method. */
    public static final List<String> ON_THE_GPU = List.of("Jacobi.sweep", "Jacobi.sweep2dMap2_4", "Dgemm.multiply",
            "Dgemm.multiply2dMap2_4", "Laplacian.laplacianMap3_1", "Reduce.dot", "Reduce.minFloat", "Reduce.sumInt",
            "Reduce.collapsedSum", "Reduce.maxNorm");

    public static final Path STORED = Path.of("src/test/resources/cuda");
    public static final String HEADER = "// acc4j test resource: nvcc " + CudaCRenderer.NVCC_OPTIONS
            + " -ptx of the CUDA C rendering whose SHA-256 is ";

    private RenderedKernels() {
    }

    /** A sample method: its class, name and descriptor. */
    public record Method(Class<?> owner, String name, String descriptor) {
        @Override
        public String toString() {
            return owner.getSimpleName() + "." + name;
        }
    }

    public static byte[] bytes(Class<?> c) {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every {@code @Kernels} method of the samples (by reflection: on the GPU machine ASM is shaded into acc.jar). */
    public static List<Method> all() {
        List<Method> out = new ArrayList<>();
        for (Class<?> c : SAMPLES) {
            for (java.lang.reflect.Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(org.acc4j.Kernels.class)) {
                    out.add(new Method(c, m.getName(), java.lang.invoke.MethodType.methodType(m.getReturnType(),
                            m.getParameterTypes()).toMethodDescriptorString()));
                }
            }
        }
        out.sort(java.util.Comparator.comparing(Method::toString));
        return out;
    }

    /** The method {@code Class.name} of {@link #SAMPLES}. */
    public static Method named(String which) {
        for (Method m : all()) {
            if (m.toString().equals(which)) {
                return m;
            }
        }
        throw new IllegalArgumentException("no @Kernels method " + which);
    }

    /** The compiled method, or null when it stays on the host. */
    public static CompiledMethod compile(Method m) {
        Compiler.Result r = Compiler.compile(bytes(m.owner()), m.name(), m.descriptor(), 90);
        return r instanceof Compiler.Offload o ? o.method() : null;
    }

    public static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The stored PTX of kernel {@code entry} from the test class path, or null. */
    public static String storedPtx(String entry) {
        try (InputStream in = RenderedKernels.class.getResourceAsStream("/cuda/" + entry + ".ptx")) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
