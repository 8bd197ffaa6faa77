package org.acc4j.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** acc4j's messages go through System.Logger "org.acc4j": fallbacks on one line of stderr by default, details quiet. */
class LogTest {
    private static String stderrOf(Runnable r) {
        PrintStream old = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(old);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    private static void assumeDefaultLogging() {
        assumeTrue(System.LoggerFinder.getLoggerFinder().getClass().getName()
                        .equals("sun.util.logging.internal.LoggingProviderImpl")
                        && System.getProperty("java.util.logging.config.file") == null,
                "System.Logger is not the JDK's default java.util.logging here");
    }

    @Test
    void aFallbackIsOneLineOnStderrByDefault() {
        assumeDefaultLogging();
        String err = stderrOf(() -> Log.warning("runs on the host: K.m (K.java:3): a call to java.lang.Math.IEEEremainder"));
        assertEquals("acc4j: runs on the host: K.m (K.java:3): a call to java.lang.Math.IEEEremainder" + System.lineSeparator(), err);
        assertEquals("acc4j: ACC_DEVICE_TYPE=host" + System.lineSeparator(), stderrOf(() -> Log.info("ACC_DEVICE_TYPE=host")));
    }

    @Test
    void detailsAreQuietByDefault() {
        assumeDefaultLogging();
        assertEquals("", stderrOf(() -> Log.debug("offloading to a GPU")));
    }

    @Test
    void messagesReachTheLoggerNamedOrgAcc4j() {
        assumeDefaultLogging();
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger("org.acc4j");
        List<LogRecord> records = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = jul.getLevel();
        jul.addHandler(h);
        jul.setLevel(java.util.logging.Level.ALL);
        try {
            stderrOf(() -> {
                Log.warning("w");
                Log.debug("d");
            });
        } finally {
            jul.removeHandler(h);
            jul.setLevel(level);
        }
        assertEquals(2, records.size());
        assertEquals(java.util.logging.Level.WARNING, records.get(0).getLevel());
        assertEquals("acc4j: w", records.get(0).getMessage());
        assertEquals(java.util.logging.Level.FINE, records.get(1).getLevel());
    }

    @Test
    void onTheQuietThreadWarningsAreDetailsAndTheReportIsSilent() throws Exception {
        assumeDefaultLogging();
        String[] err = new String[1];
        Thread t = new Thread(() -> err[0] = stderrOf(() -> {
            Log.quietOnThisThread(true);
            try {
                Log.warning("runs on the host: Warmup.touch");
                Log.info("ACC_DEVICE_TYPE=host");
                AccRuntime.printReport("Warmup.touch: nest 1 offloaded");
            } finally {
                Log.quietOnThisThread(false);
            }
        }));
        t.start();
        t.join();
        assertEquals("", err[0]);
        assertEquals("acc4j: w" + System.lineSeparator(), stderrOf(() -> Log.warning("w")));
    }
}
