package org.acc4j.runtime;

import java.lang.System.Logger.Level;

/**
 * acc4j's messages, through {@link System.Logger} {@code org.acc4j} (no logging dependency: an application that
 * routes {@code System.Logger} elsewhere, or configures {@code java.util.logging}, gets them there).
 *
 * <p>Levels: {@link Level#WARNING} when offload falls back to the host (one line per method and reason, naming
 * the class, method, source line and construct) or a setting is bad; {@link Level#INFO} when the user chose the
 * host ({@code ACC_DEVICE_TYPE=host}); {@link Level#DEBUG} for the rest (quiet by default). The compile report and
 * the time profile are not log messages: they go to stderr when their switches are on.
 *
 * <p>When {@code System.Logger} is backed by {@code java.util.logging} and the application has configured neither
 * a logging file, class, nor format (the JDK's default), acc4j's logger prints each message on one line of stderr,
 * {@code acc4j: ...}, at level INFO and above, instead of the default two-line format with a time stamp.
 */
public final class Log {
    private static final String NAME = "org.acc4j";
    private static final System.Logger LOGGER = System.getLogger(NAME);
    /** Held so that java.util.logging, which references loggers weakly, keeps the handler set below. */
    private static final Object JUL = oneLineByDefault();

    /** Marks the threads doing the runtime's own warm-up work: see {@link #quietOnThisThread}. */
    private static final ThreadLocal<Boolean> QUIET = new ThreadLocal<>();

    private Log() {
    }

    /**
     * Marks the calling thread (with {@code true}) as doing the runtime's own warm-up work, or unmarks it: while
     * marked, its warnings and infos go to DEBUG, and the compile report and the profile leave out what it does
     * ({@link #quiet()}).
     */
    public static void quietOnThisThread(boolean on) {
        if (on) {
            QUIET.set(Boolean.TRUE);
        } else {
            QUIET.remove();
        }
    }

    /** Whether the calling thread is marked by {@link #quietOnThisThread}. */
    public static boolean quiet() {
        return QUIET.get() != null;
    }

    /** Offload falls back, or a setting is bad: printed by default. */
    public static void warning(String message) {
        LOGGER.log(quiet() ? Level.DEBUG : Level.WARNING, "acc4j: " + message);
    }

    /** Something the user asked for (the host device): printed by default. */
    public static void info(String message) {
        LOGGER.log(quiet() ? Level.DEBUG : Level.INFO, "acc4j: " + message);
    }

    /** Details: quiet by default. */
    public static void debug(String message) {
        LOGGER.log(Level.DEBUG, "acc4j: " + message);
    }

    private static Object oneLineByDefault() {
        try {
            if (!System.LoggerFinder.getLoggerFinder().getClass().getName()
                    .equals("sun.util.logging.internal.LoggingProviderImpl")
                    || System.getProperty("java.util.logging.config.file") != null
                    || System.getProperty("java.util.logging.config.class") != null
                    || System.getProperty("java.util.logging.SimpleFormatter.format") != null) {
                return null;
            }
            java.util.logging.Logger jul = java.util.logging.Logger.getLogger(NAME);
            if (jul.getHandlers().length > 0 || jul.getLevel() != null) {
                return jul;
            }
            jul.setUseParentHandlers(false);
            jul.setLevel(java.util.logging.Level.INFO);
            jul.addHandler(new OneLine());
            return jul;
        } catch (RuntimeException | LinkageError e) {
            // no java.logging module, or a security manager: the logger's own defaults apply
            return null;
        }
    }

    /** Writes each record as its message on one line to the stderr of the moment (tests may replace it). */
    private static final class OneLine extends java.util.logging.Handler {
        @Override
        public void publish(java.util.logging.LogRecord record) {
            if (!isLoggable(record)) {
                return;
            }
            String line = record.getMessage();
            Throwable t = record.getThrown();
            System.err.println(t == null ? line : line + " (" + t + ")");
        }

        @Override
        public void flush() {
            System.err.flush();
        }

        @Override
        public void close() {
        }
    }
}
