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
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Kernels {
}
