package org.acc4j.test;

import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.opentest4j.TestAbortedException;

/**
 * Prints once, at the end of the test run, why tests were skipped (no CUDA device, no ptxas), with how many: the
 * build's summary alone only counts them. Registered through {@code META-INF/services} in this module's test jar,
 * which the modules with GPU or ptxas tests have on their test class path.
 */
public final class SkipReasons implements TestExecutionListener {
    private final Map<String, Integer> reasons = new TreeMap<>();

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED
                && result.getThrowable().orElse(null) instanceof TestAbortedException e) {
            String reason = String.valueOf(e.getMessage()).replaceFirst("^Assumption failed: ", "");
            reasons.merge(reason, 1, Integer::sum);
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan plan) {
        reasons.forEach((reason, count) -> System.out.println("acc4j tests: " + reason + " [" + count
                + (count == 1 ? " test or class]" : " tests or classes]")));
        reasons.clear();
    }
}
