package org.acc4j.runtime.launch;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.acc4j.compiler.site.Clauses;
import org.acc4j.compiler.site.Effect;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.compiler.site.PlanReport;
import org.acc4j.runtime.Log;
import org.acc4j.runtime.cuda.DeviceFaultException;
import org.acc4j.runtime.cuda.DeviceLostException;
import org.acc4j.runtime.data.PresentTable;

/**
 * The runtime's side of rewritten {@code @Kernels} methods: the plans the agent registered, and the calls their
 * bytecode makes — a call's start ({@link #enter}), each launch site ({@link #site}) and the call's end
 * ({@link #exit}).
 *
 * <p>A site runs its nest on the device when it can and gives back the live-out values; otherwise it returns null
 * and the nest's own bytecode runs, after the arrays it may use were brought to the host. Each reason a nest stays on
 * the host is said once. An unexpected failure of the machinery is never the caller's: the nest runs on the host, and
 * the failure is said once. Only Java's own exceptions from a kernel (an index out of bounds, a division by zero) and
 * a fault of the device reach the caller.
 */
public final class Sites {
    /** The device's parts a site uses; null from the supplier when there is no device, or it was lost. */
    public record Parts(Guard guard, Runner runner, PresentTable table) {
    }

    /** What runs a site's nest on the device ({@link Offloader}; a fake in tests). */
    public interface Runner {
        /**
         * Runs site {@code site} of plan {@code planId} inside {@code scope}, under the device lock: the live-out
         * values, or {@link Launcher.HostInstead} when the nest must run on the host this time.
         */
        Object[] runSite(int planId, MethodPlan plan, int site, Class<?> owner, Object self, Object[] values,
                         Launcher.Scope scope) throws Launcher.HostInstead;

        /** Whether {@code t} is the Java exception a kernel raised, not a failure of the machinery. */
        boolean raisedByKernel(Throwable t);
    }

    /** Enters a method's {@code @Data} region for one call and gives its token (or null). */
    @FunctionalInterface
    public interface Region {
        Object enter(Class<?> owner, MethodPlan plan, Object self, Object[] args);
    }

    /**
     * What the sites keep per plan, made once at its registration: a call reads fields and arrays here, never a map.
     * The counts are updated by one call at a time per thread, and read by {@link #stats}.
     */
    private static final class PlanState {
        final MethodPlan plan;
        /** Each site's name for messages ("Owner.method (File.java:line)"). */
        final String[] wheres;
        /** What a call's start and end are called in messages. */
        final String start;
        final String end;
        /** What host code between its sites is called in messages. */
        final String host;
        /** Sites whose machinery failed once: their nests run on the host from then on. */
        final boolean[] broken;
        /** Whether the plan's first call has been seen. */
        final java.util.concurrent.atomic.AtomicBoolean called = new java.util.concurrent.atomic.AtomicBoolean();
        /** Nests run by the target, nests run as plain Java, the last call's transfers (up, down). */
        final java.util.concurrent.atomic.AtomicLongArray stats = new java.util.concurrent.atomic.AtomicLongArray(4);

        PlanState(MethodPlan plan) {
            this.plan = plan;
            wheres = new String[plan.sites().size()];
            for (int k = 0; k < wheres.length; k++) {
                wheres[k] = plan.displayName() + " (" + plan.source() + ":" + plan.sites().get(k).line() + ")";
            }
            start = "the start of " + plan.displayName();
            end = "the end of " + plan.displayName();
            host = "host code of " + plan.displayName();
            broken = new boolean[wheres.length];
        }
    }

    private final List<PlanState> plans = new CopyOnWriteArrayList<>();
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** Each thread's calls of rewritten methods: those in progress, innermost last, and finished ones to reuse. */
    private final ThreadLocal<Calls> active = ThreadLocal.withInitial(Calls::new);
    private final Supplier<Parts> parts;
    /** The multicore target where there is no device, or null from the supplier for plain Java. */
    private final Supplier<Multicore> multicore;
    private final Supplier<Boolean> report;
    private final Consumer<String> lines;

    /**
     * One thread's calls of rewritten methods: a stack of those in progress, whose objects (and their data scopes)
     * are reused by the calls at the same depth once finished, so that a call allocates nothing.
     */
    private static final class Calls {
        private Call[] stack = new Call[4];
        private int depth;

        /** A finished call object for the next call at this depth, or null (one is then made). */
        Call reusable() {
            Call c = depth < stack.length ? stack[depth] : null;
            return c != null && c.finished ? c : null;
        }

        void push(Call c) {
            if (depth == stack.length) {
                stack = java.util.Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = c;
        }

        /** Takes {@code c} off the stack (it is the top but for calls that ended without their exit). */
        void remove(Call c) {
            for (int i = depth - 1; i >= 0; i--) {
                if (stack[i] == c) {
                    for (int j = i; j < depth - 1; j++) {
                        stack[j] = stack[j + 1];
                    }
                    // the ended call stays above the stack, to be reused by the next call at its depth
                    stack[depth - 1] = c;
                    depth--;
                    return;
                }
            }
        }

        /** The innermost call in progress, or null. */
        Call peek() {
            return depth == 0 ? null : stack[depth - 1];
        }
    }

    /**
     * One call of a rewritten method: its plan and the call's data scope. It is also the work a site does under the
     * device lock ({@link #run}), with that site's values in its fields while it runs, so that a site allocates no
     * closure.
     */
    private final class Call implements Guard.Work<Object[], RuntimeException> {
        int planId;
        PlanState state;
        MethodPlan plan;
        Class<?> owner;
        Object self;
        final CallScope data;
        Object region;
        Parts parts;
        boolean first;
        /** Set at its exit: the object may serve the next call at its depth. */
        boolean finished;
        /** The site running now and its values. */
        int index;
        Object[] values;
        MethodPlan.Site site;
        String where;

        Call(CallScope data) {
            this.data = data;
        }

        @Override
        public Object[] run() {
            try {
                Object[] o = parts.runner().runSite(planId, plan, index, owner, self, values, data);
                data.host(site.after(), values, owner);
                return o;
            } catch (Launcher.HostInstead h) {
                if (said.add("site:" + planId + ":" + index + ":" + h.kind())) {
                    Log.warning(h.kind().equals("compile") ? "runs on the host: " + where + ": " + h.getMessage()
                            : where + " runs on the host for this call: " + h.getMessage());
                }
                List<Effect> both = new ArrayList<>(site.onHost());
                both.addAll(site.after());
                data.host(both, values, owner);
                return null;
            }
        }
    }

    /**
     * @param parts the device's parts, starting the runtime on first use
     * @param report whether the report is on
     * @param lines where the report's lines go
     */
    public Sites(Supplier<Parts> parts, Supplier<Boolean> report, Consumer<String> lines) {
        this(parts, () -> null, report, lines);
    }

    /**
     * @param parts the device's parts, starting the runtime on first use
     * @param multicore the multicore target, used where {@code parts} gives none; null from it for plain Java
     * @param report whether the report is on
     * @param lines where the report's lines go
     */
    public Sites(Supplier<Parts> parts, Supplier<Multicore> multicore, Supplier<Boolean> report,
                 Consumer<String> lines) {
        this.parts = parts;
        this.multicore = multicore;
        this.report = report;
        this.lines = lines;
    }

    /** Registers a plan; its number goes into the rewritten method. */
    public int register(MethodPlan plan) {
        synchronized (plans) {
            plans.add(new PlanState(plan));
            return plans.size() - 1;
        }
    }

    public MethodPlan plan(int id) {
        return plans.get(id).plan;
    }

    /** The number of the last plan registered for {@code owner.method}, or -1. */
    public int find(String owner, String method) {
        for (int i = plans.size() - 1; i >= 0; i--) {
            MethodPlan p = plans.get(i).plan;
            if (p.owner().equals(owner.replace('.', '/')) && p.name().equals(method)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * What calls of plan {@code id} did so far: {nests run on the device, nests run on the host, arrays the last call
     * moved to the device, arrays it moved to the host}.
     */
    public long[] stats(int id) {
        long[] out = new long[4];
        if (id >= 0 && id < plans.size()) {
            var st = plans.get(id).stats;
            for (int i = 0; i < out.length; i++) {
                out[i] = st.get(i);
            }
        }
        return out;
    }

    /**
     * The start of a call: says the plan's decisions the first time (the report, or a warning for each nest that
     * stays on the host), enters the method's {@code @Data} region, and opens the call's data scope. Null when there
     * is no device: every site then runs its nest on the host. Null as well when the method's {@code if} clause is
     * false for this call: its nests run on the host, and neither the method's {@code @Data} region nor its implicit
     * data is entered, so nothing moves.
     *
     * @param args   the call's arguments, for the {@code if} clause
     * @param region enters the method's {@code @Data} region and gives its token (or null)
     * @throws IllegalStateException when the method's {@code if} clause names no {@code boolean} parameter or field
     */
    public Object enter(Class<?> owner, Object self, int planId, Object[] args, Object[] handles, Region region) {
        PlanState state = plans.get(planId);
        MethodPlan plan = state.plan;
        Clauses clauses = plan.clauses();
        if (clauses.problem() != null) {
            throw new IllegalStateException("acc4j: @Kernels(" + clauses.condition() + ") of " + plan.displayName()
                    + ": " + clauses.problem());
        }
        boolean first = !state.called.get() && state.called.compareAndSet(false, true);
        Parts p = parts.get();
        if (first && report.get()) {
            PlanReport.lines(plan).forEach(lines);
        }
        Multicore mc = p == null ? multicore.get() : null;
        if (p == null && mc == null) {
            if (first && report.get() && !plan.sites().isEmpty()) {
                lines.accept(plan.source() + ": " + plan.displayName() + ": no device: its nests run as plain Java");
            }
            return null;
        }
        if (first && !report.get()) {
            for (MethodPlan.Nest n : plan.nests()) {
                if (!n.offloaded()) {
                    Log.warning("runs on the host: " + plan.displayName() + " (" + plan.source() + ":" + n.line()
                            + "): " + String.join("; ", n.reasons()));
                }
            }
        }
        if (plan.sites().isEmpty()) {
            return null;
        }
        if (clauses.conditional() && !condition(clauses, owner, self, args)) {
            if (report.get() && said.add("if:" + planId)) {
                lines.accept(plan.source() + ": " + plan.displayName() + ": " + clauses.condition()
                        + " is false: this call runs as plain Java and moves nothing");
            }
            return null;
        }
        if (p == null) {
            if (first && report.get()) {
                lines.accept(plan.source() + ": " + plan.displayName() + ": no device: its nests run on the host's "
                        + mc.threads() + " threads (multicore)");
            }
            return new HostCall(planId, plan, owner, self, mc, plan.data() ? region.enter(owner, plan, self, args)
                    : null);
        }
        Object token = plan.data() ? region.enter(owner, plan, self, args) : null;
        Calls calls = active.get();
        boolean recording = first && report.get();
        String presentOnly = clauses.defaultPresent() ? plan.displayName() : null;
        Call call = calls.reusable();
        if (call != null) {
            call.data.reset(p.table(), owner.getClassLoader(), presentOnly, recording);
        } else {
            call = new Call(new CallScope(p.table(), owner.getClassLoader(), presentOnly, recording));
        }
        call.planId = planId;
        call.state = state;
        call.plan = plan;
        call.owner = owner;
        call.self = self;
        call.region = token;
        call.parts = p;
        call.first = first;
        call.finished = false;
        if (!plan.entry().isEmpty()) {
            CallScope data = call.data;
            try {
                p.guard().call(state.start, () -> {
                    data.host(plan.entry(), handles, owner);
                    return null;
                });
            } catch (DeviceLostException e) {
                call.finished = true;
                data.abandon();
                return null;
            }
        }
        calls.push(call);
        return call;
    }

    /** The value of the {@code if} clause for one call: the named parameter's, or the named field's. */
    static boolean condition(Clauses clauses, Class<?> owner, Object self, Object[] args) {
        if (clauses.ifParam() >= 0) {
            return (Boolean) args[clauses.ifParam()];
        }
        Field f = CONDITION_FIELDS.get(owner).get(clauses.ifField());
        try {
            return f.getBoolean(clauses.ifFieldStatic() ? null : self);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("acc4j: " + clauses.condition() + " of " + owner.getName()
                    + " cannot be read", e);
        }
    }

    /** Per class: its declared boolean fields, made accessible once. */
    private static final ClassValue<java.util.Map<String, Field>> CONDITION_FIELDS = new ClassValue<>() {
        @Override
        protected java.util.Map<String, Field> computeValue(Class<?> c) {
            java.util.Map<String, Field> out = new java.util.HashMap<>();
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == boolean.class) {
                    f.setAccessible(true);
                    out.put(f.getName(), f);
                }
            }
            return out;
        }
    };

    /** Launch site {@code index} of a call: the live-out values when the device ran the nest, else null. */
    public Object[] site(Object callObject, int index, Object[] values) {
        if (callObject instanceof HostCall hc) {
            return multicoreSite(hc, index, values);
        }
        if (!(callObject instanceof Call call) || call.finished || call.data.closed()) {
            return null;
        }
        Parts p = call.parts;
        PlanState state = call.state;
        MethodPlan.Site site = call.plan.sites().get(index);
        String where = state.wheres[index];
        if (p.guard().lost() != null) {
            return null;
        }
        if (state.broken[index]) {
            // the machinery failed here before: the nest runs on the host from now on
            hostRun(call, site, values, where);
            return null;
        }
        try {
            call.index = index;
            call.values = values;
            call.site = site;
            call.where = where;
            Object[] out;
            try {
                out = p.guard().call(where, call);
            } finally {
                call.values = null;
            }
            state.stats.incrementAndGet(out != null ? 0 : 1);
            if (out != null && call.first && report.get() && said.add("launched:" + call.planId + ":" + index)) {
                lines.accept(call.plan.source() + ":" + site.line() + ": nest of " + call.plan.displayName()
                        + " ran on the device");
            }
            return out;
        } catch (DeviceFaultException | NotPresentException e) {
            throw e;
        } catch (DeviceLostException e) {
            if (e.array() != null) {
                throw e;
            }
            return null;
        } catch (RuntimeException | Error e) {
            if (p.runner().raisedByKernel(e) || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            state.stats.incrementAndGet(1);
            if (said.add("failed:" + call.planId + ":" + index)) {
                Log.warning("runs on the host: " + where + ": the offload machinery failed (" + e + ")");
            }
            state.broken[index] = true;
            // whatever the failure left behind, the host's copies must be current before the nest runs there
            try {
                p.guard().run(where, () -> {
                    call.data.host(List.of(new Effect(false, new org.acc4j.compiler.site.Origin.Any(), false),
                            new Effect(true, new org.acc4j.compiler.site.Origin.Any(), false)), values, call.owner);
                    return null;
                });
            } catch (RuntimeException x) {
                e.addSuppressed(x);
            }
            return null;
        }
    }

    /** Whether a call follows its host code's element accesses: it has a data scope on the device. */
    public boolean followsHost(Object callObject) {
        return callObject instanceof Call call && !call.finished;
    }

    /**
     * Before host code of a call reads an element of {@code array}: a kernel's newer values are copied to the host
     * first (the row read, or the one-dimensional array). Nothing to do for a call without a data scope.
     */
    public void hostRead(Object callObject, Object array) {
        if (callObject instanceof Call call && !call.finished && !call.data.readNeedsNothing(array)) {
            hostAccess(call, array, -1, null, HOST_READ);
        }
    }

    /** Before host code of a call writes element {@code index} of {@code array} (see {@link CallScope#hostWrite}). */
    public void hostWrite(Object callObject, Object array, int index) {
        if (callObject instanceof Call call && !call.finished && !call.data.writeNeedsNothing(array, index)) {
            hostAccess(call, array, index, null, HOST_WRITE);
        }
    }

    /** Before host code of a call stores {@code row} at {@code index} of the two-dimensional {@code array}. */
    public void hostRowStore(Object callObject, Object array, int index, Object row) {
        if (callObject instanceof Call call && !call.finished && array != null) {
            hostAccess(call, array, index, row, HOST_ROW_STORE);
        }
    }

    private static final int HOST_READ = 0;
    private static final int HOST_WRITE = 1;
    private static final int HOST_ROW_STORE = 2;

    private void hostAccess(Call call, Object array, int index, Object row, int kind) {
        if (call.data.closed() || call.parts.guard().lost() != null) {
            return;
        }
        CallScope data = call.data;
        call.parts.guard().run(call.state.host, () -> {
            switch (kind) {
                case HOST_READ -> data.hostRead(array);
                case HOST_WRITE -> data.hostWrite(array, index);
                default -> data.hostRowStore(array, index, row);
            }
            return null;
        });
    }

    /** A call whose nests run on the multicore target: shared memory, no data scope. */
    private record HostCall(int planId, MethodPlan plan, Class<?> owner, Object self, Multicore multicore,
                            Object region) {
    }

    /** Launch site {@code index} of a multicore call: the live-out values, or null to run its bytecode as plain Java. */
    private Object[] multicoreSite(HostCall call, int index, Object[] values) {
        PlanState state = plans.get(call.planId());
        String where = state.wheres[index];
        if (state.broken[index]) {
            state.stats.incrementAndGet(1);
            return null;
        }
        try {
            Object[] out = call.multicore().runSite(call.planId(), call.plan(), index, call.owner(), call.self(), values);
            state.stats.incrementAndGet(0);
            return out;
        } catch (Launcher.HostInstead h) {
            if (said.add("site:" + call.planId() + ":" + index + ":" + h.kind())) {
                Log.warning(h.kind().equals("compile") ? "runs as plain Java: " + where + ": " + h.getMessage()
                        : where + " runs as plain Java for this call: " + h.getMessage());
            }
            state.stats.incrementAndGet(1);
            return null;
        } catch (RuntimeException | Error e) {
            if (call.multicore().raisedByKernel(e) || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            state.stats.incrementAndGet(1);
            if (said.add("failed:" + call.planId() + ":" + index)) {
                Log.warning("runs as plain Java: " + where + ": the multicore target failed (" + e + ")");
            }
            state.broken[index] = true;
            return null;
        }
    }

    /** Brings what a nest run on the host may use to the host (and marks what it may write). */
    private void hostRun(Call call, MethodPlan.Site site, Object[] values, String where) {
        List<Effect> both = new ArrayList<>(site.onHost());
        both.addAll(site.after());
        call.parts.guard().run(where, () -> {
            call.data.host(both, values, call.owner);
            return null;
        });
        call.state.stats.incrementAndGet(1);
    }

    /**
     * The end of a call: arrays its kernels changed go back to the host, the scope's data and the method's
     * {@code @Data} region are exited; with the report on, the first call's transfers are listed.
     *
     * @param exitRegion exits the method's {@code @Data} region, given its token
     */
    public void exit(Object callObject, Consumer<Object> exitRegion) {
        if (callObject instanceof HostCall hc) {
            if (hc.region() != null) {
                exitRegion.accept(hc.region());
            }
            return;
        }
        if (!(callObject instanceof Call call) || call.finished || call.data.closed()) {
            return;
        }
        Parts p = call.parts;
        Calls calls = active.get();
        try {
            if (p.guard().lost() != null) {
                calls.remove(call);
                call.data.abandon();
                return;
            }
            calls.remove(call);
            Call outer = calls.peek();
            p.guard().call(call.state.end, outer == null ? call.data.closer(null) : call.data.closer(outer.data));
        } finally {
            var st = call.state.stats;
            st.set(2, call.data.uploads());
            st.set(3, call.data.downloads());
            if (call.region != null) {
                exitRegion.accept(call.region);
            }
            if (call.first && report.get()) {
                lines.accept(call.plan.source() + ": " + call.plan.displayName() + ": this call moved "
                        + call.data.uploads() + " array" + (call.data.uploads() == 1 ? "" : "s") + " to the device and "
                        + call.data.downloads() + " to the host");
                for (String m : call.data.moves()) {
                    lines.accept(call.plan.source() + ": " + call.plan.displayName() + ":   " + m);
                }
            }
            // its references go, and the object serves the next call at its depth
            call.self = null;
            call.region = null;
            call.finished = true;
        }
    }
}
