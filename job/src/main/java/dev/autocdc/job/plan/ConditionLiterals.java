package dev.autocdc.job.plan;

import static dev.autocdc.job.plan.FlowPlanner.quoteName;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.flow.UnquotedLiteral;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Refuses a condition (APPLY AS DELETE WHEN, APPLY AS TRUNCATE WHEN, APPLY AS SNAPSHOT END WHEN)
 * that compares with a value written without quotes ({@link UnquotedLiteral}: {@code op = DELETE})
 * when Flink cannot plan it over the source, on the value's line, with the condition quoted as the
 * fix. Any other mistake in a condition is left to the input projection's check.
 */
final class ConditionLiterals {
    private ConditionLiterals() {}

    /**
     * @param columns the source's columns
     * @param conditionLines the script line each condition starts on, by clause; a condition
     *     without one points at the flow's line
     */
    static void check(
            StreamTableEnvironment tEnv,
            AutoCdcFlow flow,
            List<String> columns,
            Map<String, Integer> conditionLines) {
        Map<String, String> conditions = new LinkedHashMap<>();
        conditions.put("APPLY AS DELETE WHEN", flow.applyAsDeletes());
        conditions.put("APPLY AS TRUNCATE WHEN", flow.applyAsTruncates());
        conditions.put("APPLY AS SNAPSHOT END WHEN", flow.applyAsSnapshotEnd());
        for (Map.Entry<String, String> c : conditions.entrySet()) {
            if (c.getValue() == null) {
                continue;
            }
            int line = conditionLines.getOrDefault(c.getKey(), flow.line());
            UnquotedLiteral literal = UnquotedLiteral.find(c.getValue(), line, columns);
            if (literal != null && !plans(tEnv, flow, c.getValue())) {
                throw new FlowSyntaxException(
                        literal.line(),
                        c.getKey(),
                        literal.word()
                                + " is not a column of "
                                + flow.source()
                                + " but a value written without quotes; quote the literal: "
                                + literal.quoted());
            }
        }
    }

    /** Whether Flink plans the condition over the flow's source. */
    private static boolean plans(StreamTableEnvironment tEnv, AutoCdcFlow flow, String condition) {
        try {
            tEnv.sqlQuery("SELECT (" + condition + ") FROM " + quoteName(flow.source()));
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
