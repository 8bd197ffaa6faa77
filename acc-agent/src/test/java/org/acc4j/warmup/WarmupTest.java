package org.acc4j.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.acc4j.agent.AgentAccess;
import org.acc4j.compiler.site.MethodPlan;
import org.acc4j.runtime.AccRuntime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's warm-up call: the class is one the agent rewrites (its two nests become launch sites with no
 * diagnostic), and the rewritten call gives plain Java's result; here on the plain-Java path
 * ({@code acc.device.type=host}), on the GPU in the first-call harness.
 */
class WarmupTest {
    @BeforeAll
    static void hostPath() {
        AccRuntime.get().shutdown();
        System.setProperty("acc.device.type", "host");
    }

    @AfterAll
    static void defaults() {
        AccRuntime.get().shutdown();
        System.clearProperty("acc.device.type");
    }

    private static byte[] bytes() throws IOException {
        try (InputStream in = WarmupTest.class.getClassLoader().getResourceAsStream("org/acc4j/warmup/Warmup.class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void plainJavaPassesItsOwnCheck() {
        assertTrue(Warmup.run());
    }

    @Test
    void theAgentRewritesItAndTheRewrittenCallGivesJavasResult() throws Exception {
        List<MethodPlan> plans = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        byte[] out = AgentAccess.transform(p -> {
            plans.add(p);
            return AccRuntime.register(p);
        }, warnings::add, WarmupTest.class.getClassLoader(), "org/acc4j/warmup/Warmup", bytes());
        assertNotNull(out, "the warm-up class is rewritten: " + warnings);
        assertEquals(List.of(), warnings);
        assertEquals(1, plans.size());
        int kernels = 0;
        for (MethodPlan.Site site : plans.get(0).sites()) {
            kernels += site.compiled().method().kernels().size();
        }
        assertEquals(2, kernels, "both nests are kernels: " + plans.get(0).nests());
        ClassLoader one = new ClassLoader(WarmupTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals("org.acc4j.warmup.Warmup")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    return c != null ? c : defineClass(name, out, 0, out.length);
                }
            }
        };
        Class<?> c = Class.forName("org.acc4j.warmup.Warmup", true, one);
        assertEquals(Boolean.TRUE, c.getMethod("run").invoke(null));
    }

    @Test
    void theSwitchIsOnUnlessTurnedOff() {
        String old = System.getProperty("acc4j.warmup");
        try {
            System.clearProperty("acc4j.warmup");
            if (System.getenv("ACC4J_WARMUP") == null) {
                assertTrue(AgentAccess.warmupEnabled());
            }
            for (String off : new String[] {"off", "OFF", "false", "0", "no"}) {
                System.setProperty("acc4j.warmup", off);
                assertFalse(AgentAccess.warmupEnabled(), off);
            }
            for (String on : new String[] {"on", "true", "1"}) {
                System.setProperty("acc4j.warmup", on);
                assertTrue(AgentAccess.warmupEnabled(), on);
            }
        } finally {
            if (old == null) {
                System.clearProperty("acc4j.warmup");
            } else {
                System.setProperty("acc4j.warmup", old);
            }
        }
    }
}
