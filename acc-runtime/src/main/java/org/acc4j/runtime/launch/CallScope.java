package org.acc4j.runtime.launch;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.acc4j.compiler.site.Effect;
import org.acc4j.compiler.site.Origin;
import org.acc4j.runtime.data.Clause;
import org.acc4j.runtime.data.HostArrays;
import org.acc4j.runtime.data.PresentTable;

/**
 * The implicit data region of one call of a {@code @Kernels} method with launch sites, as OpenACC compilers give a
 * compute construct's host function: an array a site's kernels use stays on the device from its first use to the
 * call's end, and moves only where host code needs it.
 * <ul>
 *   <li>An array a kernel wrote is <em>device-newer</em>: it is copied to the host before host code that may read
 *       or write it (the plan's {@link Effect}s after each site say which), and at the end of the call.</li>
 *   <li>An array host code may have written is <em>host-newer</em>: it is copied to the device before the next
 *       kernel that uses it.</li>
 *   <li>Swapping references moves nothing: arrays are followed by identity.</li>
 *   <li>Host code's own element accesses are followed one by one ({@link HostUnits}): a read brings the row (or
 *       the one-dimensional array) it reads, a write sends the elements written before the next kernel, and storing
 *       a row into a two-dimensional array rewrites its row table before the next kernel that uses it.</li>
 * </ul>
 * The counts of the present table make it nest with {@code @Data} regions and {@code Acc.copyin}: an array present
 * around the call stays there after it (copied to the device again if host code changed it). Not thread-safe: a
 * scope belongs to one call on one thread; its table operations run under the device lock, taken by the caller.
 */
public final class CallScope implements Launcher.Scope {
    /** Rows of one array host code's reads bring back one by one before the rest comes as one copy. */
    public static final int ROWS_ONE_BY_ONE = HostUnits.ROWS_ONE_BY_ONE;
    private PresentTable table;
    private ClassLoader loader;
    private String presentOnly;
    /** Arrays the scope entered, in order, each once. */
    private final List<Object> entered = new ArrayList<>();
    private final Set<Object> inScope = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Object> deviceNewer = Collections.newSetFromMap(new IdentityHashMap<>());
    private final Set<Object> hostNewer = Collections.newSetFromMap(new IdentityHashMap<>());
    /** What host code's element accesses need moved. */
    private final HostUnits units = new HostUnits(this);
    /** Host code wrote through a reference nobody could name: every array present before the scope is suspect. */
    private boolean anyHostWrite;
    private boolean closed;
    /** Transfers this call made, for the report and the profile: to the device, to the host. */
    private int uploads;
    private int downloads;
    private final List<String> moves = new ArrayList<>();
    /** Whether {@link #moves} are recorded (a report will print them); otherwise no message is made. */
    private boolean recording;
    /** The scope {@link #closer} closes this one inside. */
    private CallScope closingIn;
    private final Guard.Work<Object, RuntimeException> closeWork = () -> {
        close(closingIn);
        return null;
    };

    public CallScope(PresentTable table, ClassLoader loader) {
        this(table, loader, null);
    }

    public CallScope(PresentTable table, ClassLoader loader, String presentOnly) {
        this(table, loader, presentOnly, true);
    }

    /**
     * @param presentOnly the method whose {@code defaultPresent} clause asks every array to be present already, for
     *     the message of {@link NotPresentException} ({@code Owner.method}), or null when arrays may be copied in
     * @param recording whether each transfer's reason is kept for {@link #moves} (else that list stays empty)
     */
    public CallScope(PresentTable table, ClassLoader loader, String presentOnly, boolean recording) {
        this.table = table;
        this.loader = loader;
        this.presentOnly = presentOnly;
        this.recording = recording;
    }

    /**
     * Makes this scope, closed or abandoned, a new one for another call (as the constructor would), keeping its
     * collections' storage: a call then allocates no scope.
     */
    public void reset(PresentTable table, ClassLoader loader, String presentOnly, boolean recording) {
        this.table = table;
        this.loader = loader;
        this.presentOnly = presentOnly;
        this.recording = recording;
        entered.clear();
        inScope.clear();
        deviceNewer.clear();
        hostNewer.clear();
        moves.clear();
        anyHostWrite = false;
        units.clear();
        closed = false;
        uploads = 0;
        downloads = 0;
        closingIn = null;
    }

    /** The work that closes this scope inside {@code outer} ({@link #close(CallScope)}), for the device lock. */
    public Guard.Work<Object, RuntimeException> closer(CallScope outer) {
        closingIn = outer;
        return closeWork;
    }

    /**
     * {@inheritDoc}
     *
     * @throws NotPresentException when the method has {@code defaultPresent} and {@code array} is not present
     */
    @Override
    public void adopt(Object array, String name, Clause clause) {
        if (array == null) {
            return;
        }
        if (presentOnly != null && !inScope.contains(array) && !table.isPresent(array)) {
            throw new NotPresentException(presentOnly, name, describe(array));
        }
        units.beforeKernel(array);
        if (inScope.add(array)) {
            boolean present = table.isPresent(array);
            table.enter(array, clause);
            entered.add(array);
            if (!present && (clause == Clause.COPYIN || clause == Clause.COPY)) {
                uploads++;
                if (recording) {
                    moves.add("to the device: " + describe(array) + " (first use)");
                }
            }
            boolean stale = hostNewer.remove(array) || present && anyHostWrite;
            if (present && stale) {
                table.updateDevice(array);
                uploads++;
                if (recording) {
                    moves.add("to the device: " + describe(array) + " (written on the host)");
                }
            }
        } else if (hostNewer.remove(array)) {
            table.updateDevice(array);
            uploads++;
            if (recording) {
                moves.add("to the device: " + describe(array) + " (written on the host)");
            }
        }
    }

    /**
     * {@inheritDoc} Only an array the scope has not met yet and that is not present (a present one is adopted plainly,
     * its copy kept current as {@link #adopt} does), and not under {@code defaultPresent}.
     */
    @Override
    public boolean adoptWritten(Object array, String name, long firstRow, long endRow, long firstColumn,
                                long endColumn) {
        if (array == null || presentOnly != null || inScope.contains(array) || table.isPresent(array)) {
            return false;
        }
        units.beforeKernel(array);
        inScope.add(array);
        hostNewer.remove(array);
        table.enterWritten(array, firstRow, endRow, firstColumn, endColumn);
        entered.add(array);
        if (recording) {
            moves.add("nothing to the device: " + describe(array) + " (its kernels only write it, rows " + firstRow
                    + ".." + (endRow - 1) + ", columns " + firstColumn + ".." + (endColumn - 1) + ")");
        }
        return true;
    }

    @Override
    public void written(Object array) {
        if (array != null) {
            deviceNewer.add(array);
            units.written(array);
        }
    }

    /** Before host code reads an element of {@code array}: see {@link HostUnits#read}. */
    public void hostRead(Object array) {
        units.read(array);
    }

    /** Before host code writes element {@code index} of {@code array}: see {@link HostUnits#write}. */
    public void hostWrite(Object array, int index) {
        units.write(array, index);
    }

    /** Before host code stores {@code row} at {@code index} of {@code array}: see {@link HostUnits#rowStore}. */
    public void hostRowStore(Object array, int index, Object row) {
        units.rowStore(array, index, row);
    }

    /** Whether a host read of {@code array} needs nothing (read without the device lock). */
    public boolean readNeedsNothing(Object array) {
        return units.readNeedsNothing(array);
    }

    /** Whether a host write of element {@code index} of {@code array} needs nothing (read without the device lock). */
    public boolean writeNeedsNothing(Object array, int index) {
        return units.writeNeedsNothing(array, index);
    }

    // the state HostUnits reads and changes
    PresentTable table() {
        return table;
    }

    boolean isDeviceNewer(Object array) {
        return deviceNewer.contains(array);
    }

    boolean anyDeviceNewer() {
        return !deviceNewer.isEmpty();
    }

    boolean inScope(Object array) {
        return inScope.contains(array);
    }

    void movedToHost(Object unit, String why) {
        downloads++;
        if (recording) {
            moves.add("to the host: " + describe(unit) + " (" + why + ")");
        }
    }

    void movedToDevice(Object unit, String why) {
        uploads++;
        if (recording) {
            moves.add("to the device: " + describe(unit) + " (" + why + ")");
        }
    }

    /** A device-newer array, whole, to the host (its rows' host-written elements first to the device). */
    void wholeToHost(Object array, String why) {
        toHost(array, why);
    }

    /** Applies what host code may do next (or what a nest run on the host does) to arrays: {@code values} are the site's. */
    public void host(List<Effect> effects, Object[] values, Class<?> owner) {
        // by index: a site with nothing after it, or with reads while nothing is newer on the device, makes no iterator
        for (int i = 0; i < effects.size(); i++) {
            Effect e = effects.get(i);
            if (!e.write() && deviceNewer.isEmpty()) {
                continue;
            }
            if (e.origin() instanceof Origin.Any) {
                if (e.write()) {
                    anyHostWrite = true;
                    for (Object a : entered) {
                        toHost(a, "written on the host through a reference the compiler cannot follow");
                        hostNewer.add(a);
                    }
                } else {
                    for (Object a : new ArrayList<>(deviceNewer)) {
                        toHost(a, "read on the host through a reference the compiler cannot follow");
                    }
                }
                continue;
            }
            for (Object a : arrays(e, values, owner)) {
                toHost(a, (e.write() ? "written" : "read") + " on the host: " + e.origin());
                if (e.write() && table.isPresent(a)) {
                    hostNewer.add(a);
                }
            }
        }
    }

    private void toHost(Object array, String why) {
        if (deviceNewer.contains(array)) {
            // the host's own writes go first, so that the copy back leaves them in place
            units.flush();
            units.wholeOnHost(array);
        }
        if (deviceNewer.remove(array) && table.isPresent(array)) {
            table.updateHost(array);
            downloads++;
            if (recording) {
                moves.add("to the host: " + describe(array) + " (" + why + ")");
            }
        }
    }

    /** The arrays an effect names, as far as they are present: the array itself, or what an object reaches. */
    private List<Object> arrays(Effect e, Object[] values, Class<?> owner) {
        List<Object> roots = new ArrayList<>();
        Origin o = e.origin();
        if (o instanceof Origin.Local l) {
            roots.add(l.value() < values.length ? values[l.value()] : null);
        } else if (o instanceof Origin.Field f) {
            Object base = f.isStatic() ? null : f.value() < values.length ? values[f.value()] : null;
            if (f.isStatic() || base != null) {
                roots.add(read(f.owner(), f.name(), base, owner));
            }
        } else if (o instanceof Origin.Statics s) {
            Class<?> c = type(s.owner(), owner);
            if (c != null) {
                for (Field f : fields(c)) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        roots.add(get(f, null));
                    }
                }
            }
        }
        List<Object> out = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean deep = e.deep() || o instanceof Origin.Statics;
        for (Object r : roots) {
            collect(r, deep ? 4 : 0, seen, out);
        }
        return out;
    }

    private void collect(Object v, int depth, Set<Object> seen, List<Object> out) {
        if (v == null || !seen.add(v)) {
            return;
        }
        Class<?> c = v.getClass();
        if (HostArrays.isDataType(c)) {
            if (inScope.contains(v) || table.isPresent(v)) {
                out.add(v);
            }
            return;
        }
        if (depth <= 0) {
            return;
        }
        if (c.isArray()) {
            if (!c.getComponentType().isPrimitive()) {
                Object[] a = (Object[]) v;
                for (int i = 0; i < a.length && i < 4096; i++) {
                    collect(a[i], depth - 1, seen, out);
                }
            }
            return;
        }
        if (c.getClassLoader() == null || c.getName().startsWith("java.")) {
            // the platform's objects hold no application array that matters here, but for collections
            return;
        }
        for (Field f : fields(c)) {
            if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                collect(get(f, v), depth - 1, seen, out);
            }
        }
    }

    private static final ClassValue<List<Field>> FIELDS = new ClassValue<>() {
        @Override
        protected List<Field> computeValue(Class<?> c) {
            List<Field> out = new ArrayList<>();
            for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (!f.getType().isPrimitive()) {
                        try {
                            f.setAccessible(true);
                            out.add(f);
                        } catch (RuntimeException e) {
                            // a field of a module that is not open: not ours to follow
                        }
                    }
                }
            }
            return List.copyOf(out);
        }
    };

    private static List<Field> fields(Class<?> c) {
        return FIELDS.get(c);
    }

    private static Object get(Field f, Object target) {
        try {
            return f.get(target);
        } catch (IllegalAccessException | RuntimeException e) {
            return null;
        }
    }

    private Object read(String ownerName, String name, Object base, Class<?> owner) {
        Class<?> c = base != null ? base.getClass() : type(ownerName, owner);
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(Modifier.isStatic(f.getModifiers()) ? null : base);
            } catch (NoSuchFieldException e) {
                // declared further up
            } catch (IllegalAccessException | RuntimeException e) {
                return null;
            }
        }
        return null;
    }

    private Class<?> type(String internalName, Class<?> owner) {
        String binary = internalName.replace('/', '.');
        if (owner.getName().equals(binary)) {
            return owner;
        }
        try {
            return Class.forName(binary, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /**
     * Ends the call's data region: arrays its kernels changed go back to the host, arrays present before the call
     * that host code changed go to the device again, and everything the scope entered is exited.
     */
    public void close() {
        close(null);
    }

    /**
     * As {@link #close()}, inside the call scope {@code outer} of the {@code @Kernels} method that called this one (or
     * null): an array still present after this scope, that this scope's kernels changed, becomes device-newer there,
     * so that the outer method's host code sees the change and its next kernel does not overwrite it.
     */
    public void close(CallScope outer) {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            units.flush();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (int i = entered.size() - 1; i >= 0; i--) {
            Object a = entered.get(i);
            try {
                boolean newer = deviceNewer.contains(a);
                boolean last = table.structuredCount(a) + table.dynamicCount(a) == 1;
                if (newer && last) {
                    downloads++;
                    if (recording) {
                        moves.add("to the host: " + describe(a) + " (at the end of the call)");
                    }
                }
                table.exit(a, newer ? Clause.COPY : Clause.COPYIN);
                if (!last && newer && outer != null) {
                    outer.deviceNewer.add(a);
                    outer.units.written(a);
                    outer.hostNewer.remove(a);
                }
                if (!last && hostNewer.contains(a) && table.isPresent(a)) {
                    table.updateDevice(a);
                    uploads++;
                    if (recording) {
                        moves.add("to the device: " + describe(a) + " (present around the call, written on the host)");
                    }
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        // a present array this scope never entered (a nest that ran on the host for the call wrote it, with the
        // array present from Acc.copyin or an enclosing region): its device copy takes the host's values
        if (!hostNewer.isEmpty()) {
            for (Object a : hostNewer) {
                if (inScope.contains(a)) {
                    continue;
                }
                try {
                    if (table.isPresent(a)) {
                        table.updateDevice(a);
                        uploads++;
                        if (recording) {
                            moves.add("to the device: " + describe(a)
                                    + " (present around the call, written on the host)");
                        }
                    }
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    public boolean closed() {
        return closed;
    }

    public int uploads() {
        return uploads;
    }

    public int downloads() {
        return downloads;
    }

    /** Each transfer of the call with its reason, in order (when recording). */
    public List<String> moves() {
        return moves;
    }

    static String describe(Object array) {
        Class<?> c = array.getClass();
        int n = java.lang.reflect.Array.getLength(array);
        return c.getComponentType().getSimpleName() + "[" + n + "]" + (c.getComponentType().isArray() ? "[]" : "")
                + "@" + Integer.toHexString(System.identityHashCode(array));
    }

    /** Forgets everything without touching the device (it was lost). */
    public void abandon() {
        closed = true;
        entered.clear();
        units.clear();
    }
}
