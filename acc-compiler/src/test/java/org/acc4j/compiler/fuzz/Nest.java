package org.acc4j.compiler.fuzz;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * One generated kernel: the Java source of a {@code @Kernels static void} method, its parameters with the
 * values of one call, and what the generator planted in it.
 *
 * @param seed the generator's seed; the nest is a pure function of it and the options
 * @param method the method's name ({@code k<seed>}, negative seeds as {@code km<seed>})
 * @param source the method's source text, without the class around it
 * @param params parameters in order, each with the value of the call (arrays are copied by {@link #args()})
 * @param unsupported a word the host diagnostic must contain when a construct that cannot be offloaded was
 *     planted, null otherwise
 * @param fault the exception the call may throw by design ({@code "index"}, {@code "div0"}) or null
 * @param annotated whether the nest carries {@code @Loop} clauses (on loops that are truly independent)
 * @param features what the nest uses, for the counts
 */
public record Nest(long seed, String method, String source, List<Param> params, String unsupported, String fault,
                   boolean annotated, Set<String> features) {

    /** A parameter: its Java type as written in the source and its value for the call. */
    public record Param(String name, String type, Object value) {
    }

    /** The value of an array parameter that the call binds to the same array as the earlier parameter {@code name}. */
    public record Same(String name) {
    }

    public static String methodName(long seed) {
        return seed < 0 ? "km" + (-seed) : "k" + seed;
    }

    /** The arguments of the call, arrays freshly copied: each call of this method gives equal, unshared values. */
    public Object[] args() {
        Object[] a = new Object[params.size()];
        for (int k = 0; k < a.length; k++) {
            a[k] = copy(params.get(k).value());
        }
        for (int k = 0; k < a.length; k++) {
            if (a[k] instanceof Same same) {
                a[k] = a[index(same.name())];
            }
        }
        return a;
    }

    /** The position of the parameter {@code name}. */
    public int index(String name) {
        for (int k = 0; k < params.size(); k++) {
            if (params.get(k).name().equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("no parameter " + name + " in " + method);
    }

    /** The parameter types, for reflection. */
    public Class<?>[] types() {
        List<Class<?>> t = new ArrayList<>();
        for (Param p : params) {
            t.add(switch (p.type()) {
                case "int" -> int.class;
                case "long" -> long.class;
                case "float" -> float.class;
                case "double" -> double.class;
                case "int[]" -> int[].class;
                case "long[]" -> long[].class;
                case "float[]" -> float[].class;
                case "double[]" -> double[].class;
                case "double[][]" -> double[][].class;
                case "double[][][]" -> double[][][].class;
                default -> throw new IllegalStateException(p.type());
            });
        }
        return t.toArray(new Class<?>[0]);
    }

    /** The method descriptor, for the compiler and the runtime. */
    public String descriptor() {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> c : types()) {
            d.append(c.descriptorString());
        }
        return d.append(")V").toString();
    }

    static Object copy(Object o) {
        if (o instanceof double[][][] d) {
            double[][][] c = new double[d.length][][];
            for (int i = 0; i < d.length; i++) {
                c[i] = (double[][]) copy(d[i]);
            }
            return c;
        }
        if (o instanceof double[][] d) {
            double[][] c = new double[d.length][];
            for (int i = 0; i < d.length; i++) {
                c[i] = d[i].clone();
            }
            return c;
        }
        if (o instanceof double[] d) {
            return d.clone();
        }
        if (o instanceof float[] f) {
            return f.clone();
        }
        if (o instanceof long[] l) {
            return l.clone();
        }
        if (o instanceof int[] i) {
            return i.clone();
        }
        return o;
    }

    /**
     * The first difference between two argument lists, bit for bit except that all NaNs are alike (as
     * {@link Double#doubleToLongBits} compares: HotSpot itself gives a NaN different payloads in interpreted and
     * JIT-compiled code, e.g. when C2 swaps the operands of a sum of two NaNs), or null when equal.
     */
    public static String firstDifference(Object[] expected, Object[] actual, List<Param> params) {
        for (int k = 0; k < expected.length; k++) {
            String d = difference(expected[k], actual[k]);
            if (d != null) {
                return params.get(k).name() + d;
            }
        }
        return null;
    }

    private static String difference(Object e, Object a) {
        if (e instanceof double[][][] d) {
            double[][][] x = (double[][][]) a;
            for (int i = 0; i < d.length; i++) {
                String r = difference(d[i], x[i]);
                if (r != null) {
                    return "[" + i + "]" + r;
                }
            }
            return null;
        }
        if (e instanceof double[][] d) {
            double[][] x = (double[][]) a;
            for (int i = 0; i < d.length; i++) {
                String r = difference(d[i], x[i]);
                if (r != null) {
                    return "[" + i + "]" + r;
                }
            }
            return null;
        }
        if (e instanceof double[] d) {
            double[] x = (double[]) a;
            for (int i = 0; i < d.length; i++) {
                if (Double.doubleToLongBits(d[i]) != Double.doubleToLongBits(x[i])) {
                    return "[" + i + "]: expected " + d[i] + ", got " + x[i];
                }
            }
        } else if (e instanceof float[] d) {
            float[] x = (float[]) a;
            for (int i = 0; i < d.length; i++) {
                if (Float.floatToIntBits(d[i]) != Float.floatToIntBits(x[i])) {
                    return "[" + i + "]: expected " + d[i] + ", got " + x[i];
                }
            }
        } else if (e instanceof long[] d) {
            long[] x = (long[]) a;
            for (int i = 0; i < d.length; i++) {
                if (d[i] != x[i]) {
                    return "[" + i + "]: expected " + d[i] + ", got " + x[i];
                }
            }
        } else if (e instanceof int[] d) {
            int[] x = (int[]) a;
            for (int i = 0; i < d.length; i++) {
                if (d[i] != x[i]) {
                    return "[" + i + "]: expected " + d[i] + ", got " + x[i];
                }
            }
        }
        return null;
    }
}
