package dev.autocdc.udfs.catalog;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.procedure.ProcedureContext;
import org.apache.flink.table.procedures.Procedure;

/**
 * {@code CALL autocdc.sys.run_flow('<flow text, or a flow file's path or URI>')}: plans the flows
 * with the planner {@code autocdc run} uses and submits their job from the SQL client, on the
 * cluster and with the settings the session has (its execution environment); returns the job's id.
 * The job runs on after the call, as a job of {@code INSERT INTO} does.
 */
public final class RunFlowProcedure implements Procedure {
    public static final String NAME = "run_flow";

    public String[] call(ProcedureContext context, String flow) throws Exception {
        StreamExecutionEnvironment env = context.getExecutionEnvironment();
        shipThisJar(env);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        FlowScript script = FlowText.script(flow);
        FlowPlanner planner = new FlowPlanner(tEnv);
        List<PlannedFlow> flows = planner.plan(script);
        new FlowJob(tEnv, flows, planner.inserts()).attach();
        JobClient job = env.executeAsync(FlowText.jobName(flow));
        return new String[] {job.getJobID().toString()};
    }

    /**
     * Adds the jar of these classes (the SQL functions' jar a session added) to the job's jars: the
     * session's environment does not list it, and the cluster needs the engine's classes.
     */
    static void shipThisJar(StreamExecutionEnvironment env) {
        CodeSource source = RunFlowProcedure.class.getProtectionDomain().getCodeSource();
        if (source == null || !source.getLocation().getPath().endsWith(".jar")) {
            return; // the classes of a build, not a jar (tests in this module)
        }
        List<String> jars =
                new ArrayList<>(
                        env.getConfiguration().getOptional(PipelineOptions.JARS).orElse(List.of()));
        String jar = source.getLocation().toString();
        if (!jars.contains(jar)) {
            jars.add(jar);
            Configuration shipped = new Configuration();
            shipped.set(PipelineOptions.JARS, jars);
            env.configure(shipped);
        }
    }
}
