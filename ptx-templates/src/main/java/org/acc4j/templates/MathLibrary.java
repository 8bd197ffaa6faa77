package org.acc4j.templates;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The PTX math routines a kernel may call in place of {@code java.lang.Math} functions that PTX lacks, in double
 * ({@code .f64}) and float ({@code .f32}) versions (double only for the functions {@code Math} has only for
 * doubles: atan2, atan, asin, acos, hypot, log10, log1p, expm1, sinh, cosh,
 * cbrt). A routine is a PTX {@code .func} named by {@link Routine#symbol()},
 * taking its argument(s) and returning its result as {@code .param} of its type, e.g.
 * <pre>
 * { .param .f64 a0; .param .f64 r0; st.param.f64 [a0], %fd3;
 *   call.uni (r0), acc_math_exp_f64, (a0); ld.param.f64 %fd4, [r0]; }
 * </pre>
 * {@link #moduleText} gives the module-level PTX (no {@code .version}/{@code .target} header) that defines the
 * routines a kernel uses, their helper functions and tables, each once and before its first use; every name it
 * defines starts with {@code acc_math_}.
 *
 * <p>Each double routine returns a result within 1 ulp of the exact one (faithful, measured below 0.51 ulp), is
 * semi-monotonic and has the special cases of {@link Math}'s javadoc; sin, cos and tan reduce exactly, however
 * large the argument. A float routine widens, calls the double routine and rounds once, so it is faithful too.
 * {@code org.acc4j.templates.math.AccMath}, {@code AccMathInverse}, {@code AccMathAlgebraic} and
 * {@code AccMathLogExp} compute the same bits on the host.
 */
public final class MathLibrary {
    private MathLibrary() {
    }

    /** A function of {@code java.lang.Math} with a PTX routine. */
    public enum Function {
        EXP(1), LOG(1), POW(2), SIN(1), COS(1), TAN(1), TANH(1),
        // double only: java.lang.Math has no float versions of these
        ATAN2(2), ATAN(1), ASIN(1), ACOS(1), HYPOT(2), LOG10(1), LOG1P(1), EXPM1(1), SINH(1), COSH(1),
        CBRT(1);

        private final int arity;

        Function(int arity) {
            this.arity = arity;
        }

        /** The method name in {@code java.lang.Math}, e.g. {@code exp}. */
        public String javaName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The number of arguments (2 for pow, atan2 and hypot). */
        public int arity() {
            return arity;
        }

        /** The function for a {@code java.lang.Math} (or {@code StrictMath}) method name, if there is a routine. */
        public static Optional<Function> forJavaName(String javaName) {
            for (Function f : values()) {
                if (f.javaName().equals(javaName)) {
                    return Optional.of(f);
                }
            }
            return Optional.empty();
        }
    }

    /** One routine: a function at one precision. */
    public record Routine(Function function, boolean f64) {
        public Routine {
            Objects.requireNonNull(function, "function");
        }

        /** The PTX function name, e.g. {@code acc_math_exp_f64}. */
        public String symbol() {
            return "acc_math_" + function.javaName() + "_" + ptxType();
        }

        /** The PTX type of the arguments and the result: {@code f64} or {@code f32}. */
        public String ptxType() {
            return f64 ? "f64" : "f32";
        }
    }

    /** Whether {@code java.lang.Math.<javaName>} has a routine at this precision. */
    public static boolean has(String javaName, boolean f64) {
        return routine(javaName, f64).isPresent();
    }

    /** The routine for {@code java.lang.Math.<javaName>} at this precision, if there is one. */
    public static Optional<Routine> routine(String javaName, boolean f64) {
        return Function.forJavaName(javaName).map(f -> new Routine(f, f64)).filter(r -> Part.find(r).isPresent());
    }

    /** Every routine there is. */
    public static List<Routine> all() {
        List<Routine> out = new java.util.ArrayList<>();
        for (Function f : Function.values()) {
            for (boolean f64 : new boolean[] {true, false}) {
                Routine r = new Routine(f, f64);
                if (Part.find(r).isPresent()) {
                    out.add(r);
                }
            }
        }
        return List.copyOf(out);
    }

    /** The PTX symbol of a routine; an unknown name is an error naming it. */
    public static String symbol(String javaName, boolean f64) {
        return routine(javaName, f64).orElseThrow(() -> new IllegalArgumentException(
                "no PTX math routine for Math." + javaName)).symbol();
    }

    /**
     * The PTX text defining every routine in {@code used} with its helpers and tables, each definition once and
     * in dependency order, for inclusion after a module's header and before its kernels. Empty for no routines.
     */
    public static String moduleText(Collection<Routine> used) {
        EnumSet<Part> needed = EnumSet.noneOf(Part.class);
        for (Routine r : used) {
            addWithDependencies(Part.of(r), needed);
        }
        StringBuilder out = new StringBuilder();
        // enum order puts every part after its dependencies
        for (Part p : needed) {
            out.append(Texts.TEXT.get(p));
            if (out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** The resource names (without {@code .ptx}) {@link #moduleText} would concatenate, in order. */
    public static List<String> parts(Collection<Routine> used) {
        EnumSet<Part> needed = EnumSet.noneOf(Part.class);
        for (Routine r : used) {
            addWithDependencies(Part.of(r), needed);
        }
        return needed.stream().map(p -> p.resource).toList();
    }

    private static void addWithDependencies(Part p, EnumSet<Part> into) {
        if (into.add(p)) {
            for (Part d : p.dependencies) {
                addWithDependencies(d, into);
            }
        }
    }

    /** The PTX resources under {@code math/}, each after everything it uses. */
    enum Part {
        EXP_TABLE("exp_table"),
        EXP_CORE("exp_core_f64", EXP_TABLE),
        EXP_F64("exp_f64", EXP_CORE),
        EXP_F32("exp_f32", EXP_F64),
        LOG_CORE("log_core_f64"),
        LOG_F64("log_f64", LOG_CORE),
        LOG_F32("log_f32", LOG_F64),
        POW_F64("pow_f64", LOG_CORE, EXP_CORE),
        POW_F32("pow_f32", POW_F64),
        TANH_F64("tanh_f64", EXP_TABLE),
        TANH_F32("tanh_f32", TANH_F64),
        TRIG_CORE("trig_core_f64"),
        SIN_F64("sin_f64", TRIG_CORE),
        SIN_F32("sin_f32", SIN_F64),
        COS_F64("cos_f64", TRIG_CORE),
        COS_F32("cos_f32", COS_F64),
        TAN_F64("tan_f64", TRIG_CORE),
        TAN_F32("tan_f32", TAN_F64),
        ATAN_CORE("atan_core_f64"),
        ATAN2_F64("atan2_f64", ATAN_CORE),
        ATAN_F64("atan_f64", ATAN_CORE),
        ARC_SQRT("arc_sqrt_f64"),
        ASIN_F64("asin_f64", ARC_SQRT, ATAN_CORE),
        ACOS_F64("acos_f64", ARC_SQRT, ATAN_CORE),
        HYPOT_F64("hypot_f64"),
        LOG10_F64("log10_f64", LOG_CORE),
        LOG1P_F64("log1p_f64", LOG_CORE),
        EXPM1_CORE("expm1_core_f64", EXP_TABLE),
        EXPM1_F64("expm1_f64", EXPM1_CORE, EXP_CORE),
        SINH_F64("sinh_f64", EXPM1_CORE, EXP_CORE),
        COSH_F64("cosh_f64", EXPM1_CORE, EXP_CORE),
        CBRT_F64("cbrt_f64");

        final String resource;
        final List<Part> dependencies;

        Part(String resource, Part... dependencies) {
            this.resource = resource;
            this.dependencies = List.of(dependencies);
        }

        static Optional<Part> find(Routine r) {
            String name = r.function().name() + "_" + r.ptxType().toUpperCase(Locale.ROOT);
            for (Part p : values()) {
                if (p.name().equals(name)) {
                    return Optional.of(p);
                }
            }
            return Optional.empty();
        }

        static Part of(Routine r) {
            return find(r).orElseThrow(() -> new IllegalArgumentException("no PTX routine " + r.symbol()));
        }
    }

    /** The resource texts, read once when first needed. */
    private static final class Texts {
        static final Map<Part, String> TEXT = load();

        private static Map<Part, String> load() {
            Map<Part, String> m = new EnumMap<>(Part.class);
            for (Part p : Part.values()) {
                String path = "math/" + p.resource + ".ptx";
                try (InputStream in = MathLibrary.class.getResourceAsStream(path)) {
                    if (in == null) {
                        throw new IllegalStateException("missing PTX resource " + path);
                    }
                    m.put(p, new String(in.readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new UncheckedIOException("reading PTX resource " + path, e);
                }
            }
            return java.util.Collections.unmodifiableMap(m);
        }
    }
}
