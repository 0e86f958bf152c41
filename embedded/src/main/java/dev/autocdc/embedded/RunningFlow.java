package dev.autocdc.embedded;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.plan.FlowJob;
import dev.autocdc.job.plan.FlowPlanner;
import dev.autocdc.job.plan.PlannedFlow;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * A flow script running on a local Flink in this JVM until closed, as {@code autocdc run} runs an
 * unbounded one: planned by the CLI's planner, its targets written by the job, checkpoints at the
 * interval given (a lake target commits what it wrote at each).
 */
final class RunningFlow implements AutoCloseable {
    private final JobClient job;

    private RunningFlow(JobClient job) {
        this.job = job;
    }

    static RunningFlow start(String script, int parallelism, Duration checkpoints)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpoints);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.getConfig().enableObjectReuse(); // as the CLI runs a flow
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        FlowPlanner planner = new FlowPlanner(tEnv);
        List<PlannedFlow> flows = planner.plan(FlowScript.parse(script));
        new FlowJob(tEnv, flows, planner.inserts()).attach();
        return new RunningFlow(env.executeAsync("AUTO CDC " + flows.get(0).flow().name()));
    }

    /** Cancels the job and waits for it. */
    @Override
    public void close() throws Exception {
        job.cancel().get();
    }
}
