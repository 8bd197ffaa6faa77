package org.acc4j;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method whose loop nests are compute regions, each offloaded to the GPU as a kernel
 * (OpenACC {@code kernels}).
 *
 * <p>With {@code -javaagent:acc.jar} the method is compiled to PTX on its first call and run on the device;
 * the loops to parallelise are those marked with {@link Loop} (or, where none is marked, those the compiler
 * proves independent). Without the agent, without a device, or when the method uses a construct the
 * compiler does not handle, the method runs as plain Java with the same result, and the runtime says once
 * why.
 *
 * <p>Arrays the method uses get the clauses of a {@link Data} annotation on it; arrays without a clause get
 * implicit ones: read only is {@code copyin}, written is {@code copy} (or {@code copyout} when every element
 * is provably written before any is read).
 *
 * <p><b>Async</b> (OpenACC's {@code async} clause). {@code @Kernels(async = 1)} puts the call's work on queue 1,
 * {@code @Kernels(asyncParam = "q")} on the queue numbered by the method's {@code int} parameter {@code q} at each
 * call (naming a parameter needs the class compiled with {@code javac -parameters} or {@code -g}). Queues are numbered
 * from 0; {@link Acc#ASYNC_NOVAL} is OpenACC's default queue and {@link Acc#ASYNC_SYNC} (the default) means
 * synchronous. With the agent on a GPU the call returns once its kernels are queued: work on one queue runs in
 * order, queues run side by side, and {@link Acc#wait(int)} or {@link Acc#waitAll()} joins them; the user guide's
 * (docs/guide.md) "Async queues" section says what the host may touch meanwhile. Arrays the call uses that are not present yet are
 * copied in when it is made and copied back at the wait; an exception of a kernel ({@code
 * ArrayIndexOutOfBoundsException}, {@code ArithmeticException}) is thrown by the wait, and then nothing the call
 * wrote is copied back. A method that returns a value or has a reduction runs synchronously (said once). Without
 * the agent, or on the host, the call is synchronous: everything is complete when it returns.
 *
 * <p><b>Wait</b> (OpenACC's {@code wait} clause on an async construct). {@code @Kernels(async = 3, waitOn = {1, 2})}
 * queues the call's work on queue 3 behind the work already queued on queues 1 and 2, with no host wait: on a GPU an
 * event recorded on each of those queues, which queue 3's stream waits for. {@link Acc#waitAsync(int[], int)} does the
 * same between any queues.
 *
 * <p><b>Serial</b> (OpenACC's {@code serial} construct). {@code @Kernels(serial = true)} runs each loop nest on one
 * device thread, in Java's order, so loops the dependence test refuses (a prefix sum, a recurrence) run on the device
 * next to the data the method's other nests or an enclosing {@link Data} region keep there, and the data clauses are
 * those of any nest. One GPU thread is far slower than a CPU core: it pays only when it saves moving the arrays
 * to the host and back. A nest's outer loop marked {@code @Loop(seq = true)} asks the same for that nest alone.
 *
 * <p><b>If</b> (OpenACC's {@code if} clause). {@code @Kernels(ifParam = "gpu")} offloads a call only when the method's
 * {@code boolean} parameter {@code gpu} is true at that call; {@code @Kernels(ifField = "useGpu")} reads a {@code
 * boolean} field of the method's class (of {@code this}, or static) at each call. When it is false the call runs as
 * plain Java on the host's arrays and leaves the device alone: nothing is copied either way, and device copies of
 * present arrays keep their values. A name that does not resolve makes every call throw {@code
 * IllegalStateException} naming the method. Without the agent the clause is ignored.
 *
 * <p><b>Default present</b> (OpenACC's {@code default(present)}). {@code @Kernels(defaultPresent = true)} asks that
 * every array a nest uses be present already, from {@link Acc#copyin} or an enclosing {@link Data} region: a nest
 * that uses an array that is not throws {@code IllegalStateException} naming it, before its kernel runs. Without the
 * agent or without a device (host semantics: everything is present) the clause is ignored. Neither clause is
 * supported yet together with {@code async} or {@code asyncParam}: each call then throws {@code IllegalStateException}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Kernels {
    /**
     * The queue the call's work goes on: 0 or more, {@link Acc#ASYNC_NOVAL} for the default queue, or {@link
     * Acc#ASYNC_SYNC} (the default) for none. Another negative value runs the call synchronously, with a warning.
     */
    int async() default Acc.ASYNC_SYNC;

    /**
     * The name of an {@code int} parameter whose value at each call is the queue, as for {@link #async()}; empty
     * (the default) for none. Set at most one of {@code async} and {@code asyncParam}.
     */
    String asyncParam() default "";

    /**
     * The queues the call's work waits for, on the device, before it starts (OpenACC's {@code wait(1, 2) async(3)} as
     * {@code @Kernels(async = 3, waitOn = {1, 2})}): the host does not wait, and a wait for the call's queue joins
     * those queues' work too, as {@link Acc#waitAsync(int[], int)} says. Needs {@code async} or {@code asyncParam}:
     * a synchronous call already waits for every queue. Each is 0 or more or {@link Acc#ASYNC_NOVAL}; empty (the
     * default) for none. A number that is not a queue, or {@code waitOn} without an async clause, runs the call
     * synchronously, with a warning.
     */
    int[] waitOn() default {};

    /**
     * Whether each loop nest of the method runs on one device thread, in Java's order (OpenACC's {@code serial}
     * construct: one gang of one worker of vector length 1), instead of in parallel or on the host. A loop nest whose
     * outer loop is marked {@code @Loop(seq = true)}, with no parallel clause inside, runs so too. False (the
     * default): parallel nests run in parallel and a sequential one stays on the host.
     */
    boolean serial() default false;

    /**
     * Whether a loop that is a scan of {@code float} or {@code double} sums or products ({@code s += a[i]; b[i] =
     * s;}) may run as a parallel scan, which groups the additions or multiplications differently from Java's
     * left-to-right loop, so the results differ in their last bits. False (the default): such a loop stays
     * sequential, and says why. Integer scans, and {@code Math.min} and {@code Math.max} scans of any type, give
     * Java's result exactly and need no permission.
     *
     * <p>On a GPU of compute capability 9.0 or later it also lets a {@code double} matmul nest ({@code c[i][j] =
     * Σ_k a[i][k] * b[k][j]}) run on the FP64 tensor cores, which fuse each product with the running sum: each
     * element of c then differs from Java's in its last bits, within {@code 2 (p + 1) 2^-53 (|c0| + Σ_k |a b|)} for
     * p terms. False: such a nest gives Java's result bit for bit.
     */
    boolean relaxed() default false;

    /**
     * The name of a {@code boolean} parameter whose value at each call decides whether the call's nests may run on
     * the device (OpenACC's {@code if}); empty (the default) for always. Set at most one of {@code ifParam} and
     * {@code ifField}.
     */
    String ifParam() default "";

    /**
     * The name of a {@code boolean} field declared in the method's class (an instance field, or a static one), read
     * at each call, as for {@link #ifParam()}; empty (the default) for none.
     */
    String ifField() default "";

    /**
     * Whether every array the nests use must already be present on the device (OpenACC's {@code default(present)}):
     * one that is not makes the call throw {@code IllegalStateException} naming it. False (the default) gives
     * arrays without a clause implicit {@code copyin}, {@code copy} or {@code copyout}.
     */
    boolean defaultPresent() default false;
}
