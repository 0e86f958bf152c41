package dev.autocdc.udfs.catalog;

import dev.autocdc.job.cli.FlowReport;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/**
 * {@code CALL autocdc.sys.validate_flow('<flow text, or a flow file's path or URI>')}: plans the
 * flows as {@code autocdc validate} does, creating no target, and returns its report, a row per
 * line.
 */
public final class ValidateFlowProcedure implements Procedure {
    public static final String NAME = "validate_flow";

    public String[] call(ProcedureContext context, String flow) throws Exception {
        StreamTableEnvironment tEnv =
                StreamTableEnvironment.create(context.getExecutionEnvironment());
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8)) {
            for (PlannedFlow f : new FlowPlanner(tEnv, false).plan(FlowText.script(flow))) {
                FlowReport.print(out, tEnv, f);
            }
        }
        return report.toString(StandardCharsets.UTF_8).lines().toArray(String[]::new);
    }
}
