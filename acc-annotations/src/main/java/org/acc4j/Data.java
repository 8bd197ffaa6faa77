package org.acc4j;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A structured data region (OpenACC {@code data}) spanning the annotated method.
 *
 * <p>Each element lists names of array parameters of the method or array fields of {@code this} (or of the
 * class, for a static method). The method's parameter names come from the class file: compile with
 * {@code -parameters} (or {@code -g}) so they are there. A name that cannot be resolved is an error naming
 * the method and the name.
 *
 * <p>Counting follows OpenACC 2.5 and later: an array already present only has its structured reference
 * count raised on entry and lowered on exit; data moves only when it first becomes present, and (for
 * {@code copy} and {@code copyout}) when both of its counts reach zero.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Data {
    /** Copied to the device on entry, not back on exit. */
    String[] copyin() default {};

    /** Allocated on the device on entry, copied to the host on exit. */
    String[] copyout() default {};

    /** Copied to the device on entry and back on exit. */
    String[] copy() default {};

    /** Allocated on the device, never copied. */
    String[] create() default {};

    /** Must already be on the device (from an enclosing region or {@link Acc#copyin}); an error otherwise. */
    String[] present() default {};
}
