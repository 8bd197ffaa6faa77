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
    public record Parts(Guard guard, Offloader offloader, PresentTable table, Launcher launcher) {
    }

    private final List<MethodPlan> plans = new CopyOnWriteArrayList<>();
    /**
     * Per plan: nests run by the target (the device, or the multicore target without one), nests run as plain Java, and
     * the last call's transfers (up, down).
     */
    private final java.util.Map<Integer, long[]> stats = new ConcurrentHashMap<>();
    private final Set<String> said = ConcurrentHashMap.newKeySet();
    /** Sites whose machinery failed once (plan number and site index): their nests run on the host from then on. */
    private final Set<Long> broken = ConcurrentHashMap.newKeySet();
    /** Per plan, each site's name for messages ("Owner.method (File.java:line)"), made once. */
    private final List<String[]> wheres = new CopyOnWriteArrayList<>();
    /** Per plan, what a call's start and end are called in messages, made once. */
    private final List<String[]> bounds = new CopyOnWriteArrayList<>();
    /** Plans whose first call has been seen. */
    private final Set<Integer> called = ConcurrentHashMap.newKeySet();
    /** Each thread's calls of rewritten methods in progress, innermost first. */
    private final ThreadLocal<java.util.ArrayDeque<Call>> active = ThreadLocal.withInitial(java.util.ArrayDeque::new);
    private final Supplier<Parts> parts;
    /** The multicore target where there is no device, or null from the supplier for plain Java. */
    private final Supplier<Multicore> multicore;
    private final Supplier<Boolean> report;
    private final Consumer<String> lines;

    /** One call of a rewritten method: its plan and the call's data scope. */
    private static final class Call {
        final int planId;
        final MethodPlan plan;
        final Class<?> owner;
        final Object self;
        final CallScope data;
        final Object region;
        final Parts parts;
        final boolean first;

        Call(int planId, MethodPlan plan, Class<?> owner, Object self, CallScope data, Object region, Parts parts,
             boolean first) {
            this.planId = planId;
            this.plan = plan;
            this.owner = owner;
            this.self = self;
            this.data = data;
            this.region = region;
            this.parts = parts;
            this.first = first;
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
            plans.add(plan);
            String[] w = new String[plan.sites().size()];
            for (int k = 0; k < w.length; k++) {
                w[k] = plan.displayName() + " (" + plan.source() + ":" + plan.sites().get(k).line() + ")";
            }
            wheres.add(w);
            bounds.add(new String[] {"the start of " + plan.displayName(), "the end of " + plan.displayName()});
            return plans.size() - 1;
        }
    }

    public MethodPlan plan(int id) {
        return plans.get(id);
    }

    /** The number of the last plan registered for {@code owner.method}, or -1. */
    public int find(String owner, String method) {
        for (int i = plans.size() - 1; i >= 0; i--) {
            MethodPlan p = plans.get(i);
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
        return stats.getOrDefault(id, new long[4]).clone();
    }

    private long[] statsOf(int id) {
        return stats.computeIfAbsent(id, k -> new long[4]);
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
    public Object enter(Class<?> owner, Object self, int planId, Object[] args, Object[] handles,
                        Supplier<Object> region) {
        MethodPlan plan = plans.get(planId);
        Clauses clauses = plan.clauses();
        if (clauses.problem() != null) {
            throw new IllegalStateException("acc4j: @Kernels(" + clauses.condition() + ") of " + plan.displayName()
                    + ": " + clauses.problem());
        }
        boolean first = !called.contains(planId) && called.add(planId);
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
            return new HostCall(planId, plan, owner, self, mc, plan.data() ? region.get() : null);
        }
        Object token = plan.data() ? region.get() : null;
        CallScope data = new CallScope(p.table(), owner.getClassLoader(),
                clauses.defaultPresent() ? plan.displayName() : null, first && report.get());
        Call call = new Call(planId, plan, owner, self, data, token, p, first);
        if (!plan.entry().isEmpty()) {
            try {
                p.guard().run(bounds.get(planId)[0], () -> {
                    data.host(plan.entry(), handles, owner);
                    return null;
                });
            } catch (DeviceLostException e) {
                return null;
            }
        }
        active.get().push(call);
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
        if (!(callObject instanceof Call call) || call.data.closed()) {
            return null;
        }
        Parts p = call.parts;
        MethodPlan.Site site = call.plan.sites().get(index);
        String where = wheres.get(call.planId)[index];
        if (p.guard().lost() != null) {
            return null;
        }
        if (broken.contains(key(call.planId, index))) {
            // the machinery failed here before: the nest runs on the host from now on
            hostRun(call, site, values, where);
            return null;
        }
        try {
            Object[] out = p.guard().run(where, () -> {
                try {
                    Object[] o = p.offloader().runSite(call.planId, call.plan, index, call.owner, call.self, values,
                            call.data);
                    call.data.host(site.after(), values, call.owner);
                    return o;
                } catch (Launcher.HostInstead h) {
                    if (said.add("site:" + call.planId + ":" + index + ":" + h.kind())) {
                        Log.warning(h.kind().equals("compile") ? "runs on the host: " + where + ": " + h.getMessage()
                                : where + " runs on the host for this call: " + h.getMessage());
                    }
                    List<Effect> both = new ArrayList<>(site.onHost());
                    both.addAll(site.after());
                    call.data.host(both, values, call.owner);
                    return null;
                }
            });
            synchronized (stats) {
                statsOf(call.planId)[out != null ? 0 : 1]++;
            }
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
            if (p.launcher().raisedByKernel(e) || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            synchronized (stats) {
                statsOf(call.planId)[1]++;
            }
            if (said.add("failed:" + call.planId + ":" + index)) {
                Log.warning("runs on the host: " + where + ": the offload machinery failed (" + e + ")");
            }
            broken.add(key(call.planId, index));
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

    /** A call whose nests run on the multicore target: shared memory, no data scope. */
    private record HostCall(int planId, MethodPlan plan, Class<?> owner, Object self, Multicore multicore,
                            Object region) {
    }

    /** Launch site {@code index} of a multicore call: the live-out values, or null to run its bytecode as plain Java. */
    private Object[] multicoreSite(HostCall call, int index, Object[] values) {
        String where = wheres.get(call.planId())[index];
        if (broken.contains(key(call.planId(), index))) {
            synchronized (stats) {
                statsOf(call.planId())[1]++;
            }
            return null;
        }
        try {
            Object[] out = call.multicore().runSite(call.planId(), call.plan(), index, call.owner(), call.self(), values);
            synchronized (stats) {
                statsOf(call.planId())[0]++;
            }
            return out;
        } catch (Launcher.HostInstead h) {
            if (said.add("site:" + call.planId() + ":" + index + ":" + h.kind())) {
                Log.warning(h.kind().equals("compile") ? "runs as plain Java: " + where + ": " + h.getMessage()
                        : where + " runs as plain Java for this call: " + h.getMessage());
            }
            synchronized (stats) {
                statsOf(call.planId())[1]++;
            }
            return null;
        } catch (RuntimeException | Error e) {
            if (call.multicore().raisedByKernel(e) || e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            synchronized (stats) {
                statsOf(call.planId())[1]++;
            }
            if (said.add("failed:" + call.planId() + ":" + index)) {
                Log.warning("runs as plain Java: " + where + ": the multicore target failed (" + e + ")");
            }
            broken.add(key(call.planId(), index));
            return null;
        }
    }

    private static long key(int planId, int index) {
        return (long) planId << 32 | index;
    }

    /** Brings what a nest run on the host may use to the host (and marks what it may write). */
    private void hostRun(Call call, MethodPlan.Site site, Object[] values, String where) {
        List<Effect> both = new ArrayList<>(site.onHost());
        both.addAll(site.after());
        call.parts.guard().run(where, () -> {
            call.data.host(both, values, call.owner);
            return null;
        });
        synchronized (stats) {
            statsOf(call.planId)[1]++;
        }
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
        if (!(callObject instanceof Call call) || call.data.closed()) {
            return;
        }
        Parts p = call.parts;
        try {
            if (p.guard().lost() != null) {
                active.get().remove(call);
                call.data.abandon();
                return;
            }
            java.util.ArrayDeque<Call> calls = active.get();
            calls.remove(call);
            Call outer = calls.peek();
            p.guard().run(bounds.get(call.planId)[1], () -> {
                call.data.close(outer == null ? null : outer.data);
                return null;
            });
        } finally {
            synchronized (stats) {
                long[] st = statsOf(call.planId);
                st[2] = call.data.uploads();
                st[3] = call.data.downloads();
            }
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
        }
    }
}
