package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Jobs planned from a flow script, and savepoints of them as Flink's restore check sees them: a
 * {@code _metadata} file holding an empty state for each operator id of the job, and nothing else.
 */
final class PlannedSavepoint {
    private PlannedSavepoint() {}

    /** The job of {@code script}, restoring {@code savepoint} when not null. */
    static StreamExecutionEnvironment plan(String script, Path savepoint) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        if (savepoint != null) {
            tEnv.getConfig().set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
        }
        FlowPlanner planner = new FlowPlanner(tEnv);
        new FlowJob(tEnv, planner.plan(FlowScript.parse(script)), planner.inserts()).attach();
        return env;
    }

    /** A new savepoint directory under {@code dir} of the job {@code env} holds. */
    static Path of(Path dir, StreamExecutionEnvironment env) throws IOException {
        Path to = Files.createTempDirectory(dir, "savepoint");
        List<OperatorState> states = new ArrayList<>();
        for (JobVertex v : env.getStreamGraph(false).getJobGraph().getVertices()) {
            for (OperatorIDPair pair : v.getOperatorIDs()) {
                String id = pair.getGeneratedOperatorID().toHexString();
                states.add(
                        new OperatorState(
                                v.getName(), "uid-" + id, pair.getGeneratedOperatorID(), 1, 128));
            }
        }
        try (OutputStream out = Files.newOutputStream(to.resolve("_metadata"))) {
            Checkpoints.storeCheckpointMetadata(
                    new CheckpointMetadata(1L, states, List.of()), new DataOutputStream(out));
        }
        return to;
    }

    /** The ids Flink gives the job's operators, as a savepoint records them. */
    static Set<String> operatorIds(StreamExecutionEnvironment env) {
        Set<String> ids = new TreeSet<>();
        for (JobVertex v : env.getStreamGraph(false).getJobGraph().getVertices()) {
            for (OperatorIDPair pair : v.getOperatorIDs()) {
                ids.add(pair.getGeneratedOperatorID().toHexString());
            }
        }
        return ids;
    }
}
