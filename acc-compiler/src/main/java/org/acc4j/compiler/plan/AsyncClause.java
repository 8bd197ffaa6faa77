package org.acc4j.compiler.plan;

import java.util.List;
import org.acc4j.Acc;
import org.acc4j.compiler.site.Clauses;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The queue a {@code @Kernels} method's calls go on, from its annotation's {@code async} and {@code asyncParam}
 * elements (OpenACC's {@code async} clause), read from the compiled method, with {@code waitOn}. The runtime asks
 * it for each call's queue ({@link #queue}).
 *
 * @param constant the queue of {@code async = n} ({@link Acc#ASYNC_SYNC} when not set)
 * @param param    the argument index of the {@code int} parameter {@code asyncParam} names, or -1
 * @param clause   the annotation's element as written, for messages, e.g. {@code async = 2}; empty when synchronous
 * @param problem  why the annotation cannot be followed (the calls then run synchronously), or null
 * @param waitOn   the queues of {@code waitOn}, which each call's work waits for on the device; empty for none
 */
public record AsyncClause(int constant, int param, String clause, String problem, int[] waitOn) {
    /** No queue: every call runs synchronously. */
    public static final AsyncClause SYNC = new AsyncClause(Acc.ASYNC_SYNC, -1, "", null);
    private static final String KERNELS = "Lorg/acc4j/Kernels;";
    private static final int[] NO_WAITS = {};

    AsyncClause(int constant, int param, String clause, String problem) {
        this(constant, param, clause, problem, NO_WAITS);
    }

    /**
     * Reads the {@code @Kernels} annotation of method {@code name} with {@code descriptor} from {@code classFile};
     * {@link #SYNC} when it asks for no queue.
     *
     * @throws IllegalArgumentException when the class has no such method
     */
    public static AsyncClause of(byte[] classFile, String name, String descriptor) {
        ClassNode cn = new ClassNode();
        new ClassReader(classFile).accept(cn, ClassReader.SKIP_CODE);
        return of(cn.methods.stream().filter(m -> m.name.equals(name) && m.desc.equals(descriptor)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no method " + name + descriptor + " in " + cn.name)));
    }

    /** Reads the annotation of {@code method}; {@link #SYNC} when it asks for no queue. */
    static AsyncClause of(MethodNode method) {
        Integer async = null;
        String paramName = null;
        int[] waitOn = NO_WAITS;
        for (AnnotationNode a : method.visibleAnnotations == null ? List.<AnnotationNode>of() : method.visibleAnnotations) {
            if (KERNELS.equals(a.desc) && a.values != null) {
                for (int i = 0; i + 1 < a.values.size(); i += 2) {
                    if ("async".equals(a.values.get(i))) {
                        async = (Integer) a.values.get(i + 1);
                    } else if ("asyncParam".equals(a.values.get(i))) {
                        paramName = (String) a.values.get(i + 1);
                    } else if ("waitOn".equals(a.values.get(i))) {
                        waitOn = ((List<?>) a.values.get(i + 1)).stream().mapToInt(v -> (Integer) v).toArray();
                    }
                }
            }
        }
        boolean named = paramName != null && !paramName.isEmpty();
        String waits = waitOn.length == 0 ? "" : ", waitOn = " + java.util.Arrays.toString(waitOn)
                .replace('[', '{').replace(']', '}');
        if ((async == null || async == Acc.ASYNC_SYNC) && !named) {
            return waitOn.length == 0 ? SYNC : new AsyncClause(Acc.ASYNC_SYNC, -1, waits.substring(2),
                    "waitOn needs async or asyncParam (a synchronous call waits for every queue already)", waitOn);
        }
        for (int w : waitOn) {
            if (w < 0 && w != Acc.ASYNC_NOVAL) {
                return new AsyncClause(Acc.ASYNC_SYNC, -1, (named ? "asyncParam = \"" + paramName + "\"" : "async = "
                        + async) + waits, "waitOn: " + w + " is not a queue: use 0 or more or Acc.ASYNC_NOVAL", waitOn);
            }
        }
        AsyncClause q = withoutWaits(method, async, paramName, named);
        return waitOn.length == 0 ? q : new AsyncClause(q.constant(), q.param(), q.clause() + waits, q.problem(), waitOn);
    }

    private static AsyncClause withoutWaits(MethodNode method, Integer async, String paramName, boolean named) {
        if (async != null && named) {
            return new AsyncClause(Acc.ASYNC_SYNC, -1, "async = " + async + ", asyncParam = \"" + paramName + "\"",
                    "set async or asyncParam, not both");
        }
        if (!named) {
            String clause = "async = " + async;
            if (async < 0 && async != Acc.ASYNC_NOVAL && async != Acc.ASYNC_SYNC) {
                return new AsyncClause(Acc.ASYNC_SYNC, -1, clause, async + " is not a queue: use 0 or more,"
                        + " Acc.ASYNC_NOVAL or Acc.ASYNC_SYNC");
            }
            return async == Acc.ASYNC_SYNC ? SYNC : new AsyncClause(async, -1, clause, null);
        }
        String clause = "asyncParam = \"" + paramName + "\"";
        int index = Clauses.parameterIndex(method, paramName);
        if (index < 0) {
            return new AsyncClause(Acc.ASYNC_SYNC, -1, clause, "the method has no parameter named " + paramName
                    + " (parameter names need the class compiled with javac -g or -parameters)");
        }
        if (!Type.getArgumentTypes(method.desc)[index].equals(Type.INT_TYPE)) {
            return new AsyncClause(Acc.ASYNC_SYNC, -1, clause, "the parameter " + paramName + " is a "
                    + Type.getArgumentTypes(method.desc)[index].getClassName() + ", not an int");
        }
        return new AsyncClause(Acc.ASYNC_SYNC, index, clause, null);
    }

    /** Whether no call can go on a queue. */
    public boolean synchronous() {
        return constant == Acc.ASYNC_SYNC && param < 0;
    }

    /**
     * The queue of one call: the constant, or the named parameter's value ({@link Acc#ASYNC_SYNC} for none).
     *
     * @throws IllegalArgumentException when the parameter's value is not a queue
     */
    public int queue(Object[] args) {
        if (param < 0) {
            return constant;
        }
        int q = (Integer) args[param];
        if (q < 0 && q != Acc.ASYNC_NOVAL && q != Acc.ASYNC_SYNC) {
            throw new IllegalArgumentException(q + " is not a queue: use 0 or more, Acc.ASYNC_NOVAL or Acc.ASYNC_SYNC");
        }
        return q;
    }
}
