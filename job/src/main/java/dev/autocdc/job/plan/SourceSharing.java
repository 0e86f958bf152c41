package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import dev.autocdc.job.source.ByteReads;
import dev.autocdc.operators.core.AutoCdcFlow;
import java.io.IOException;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.state.api.runtime.OperatorIDGenerator;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * Decides whether a flow reads its table through the source it shares with the script's other flows
 * of that table ({@link ByteReads}) or through one of its own, by its setting {@code
 * autocdc.<flow>.source} ({@link SourceOptions#SOURCE}):
 *
 * <ul>
 *   <li>{@code own}: its own source, uid {@link StableUids#sourceUid};
 *   <li>{@code shared}: the shared one, uid {@link StableUids#sharedSourceUid}, also when no other
 *       flow reads the table;
 *   <li>{@code auto}, the default: shared, unless the job restores a savepoint ({@code
 *       execution.state-recovery.path}) that holds the flow's own source (it had one: it keeps its
 *       offsets) or no state of the flow's engine (a flow added to the job: it reads from its
 *       startup mode, not from where the others are). A table read by one flow alone keeps that
 *       flow's own uid, unless the savepoint holds the shared source (the others were removed).
 * </ul>
 *
 * A savepoint is known by the operator ids it holds state for, each the hash of a uid ({@link
 * OperatorIDGenerator}); it is read once, when the first flow on {@code auto} asks.
 */
final class SourceSharing {
    private final StreamTableEnvironment tEnv;
    private final ByteReads reads = new ByteReads();

    /** The operators the restored savepoint holds state for; empty when the job starts afresh. */
    private Optional<Set<OperatorID>> restored;

    SourceSharing(StreamTableEnvironment tEnv) {
        this.tEnv = tEnv;
    }

    /** The tables read as bytes for the flows planned so far. */
    ByteReads reads() {
        return reads;
    }

    /** How {@code flow} may share its source's read; null: it reads the source on its own. */
    ByteReads.Sharing sharing(AutoCdcFlow flow, FlowOptions options) {
        String shared = StableUids.sharedSourceUid(flow.source());
        switch (options.sourceRead(flow.name())) {
            case OWN:
                return null;
            case SHARED:
                return new ByteReads.Sharing(shared, true);
            default:
                if (restored(flow).isEmpty()) {
                    return new ByteReads.Sharing(shared, false);
                }
                boolean own = holds(flow, StableUids.sourceUid(flow.name(), flow.source()));
                boolean added = !holds(flow, FlowJob.engineUid(flow.name()));
                return own || added ? null : new ByteReads.Sharing(shared, holds(flow, shared));
        }
    }

    private boolean holds(AutoCdcFlow flow, String uid) {
        return restored(flow)
                .map(ids -> ids.contains(OperatorIDGenerator.fromUid(uid)))
                .orElse(false);
    }

    private Optional<Set<OperatorID>> restored(AutoCdcFlow flow) {
        if (restored == null) {
            restored = load(flow);
        }
        return restored;
    }

    private Optional<Set<OperatorID>> load(AutoCdcFlow flow) {
        Optional<String> path = tEnv.getConfig().getOptional(StateRecoveryOptions.SAVEPOINT_PATH);
        if (path.isEmpty()) {
            return Optional.empty();
        }
        try {
            Set<OperatorID> ids = new HashSet<>();
            for (OperatorState s :
                    SavepointLoader.loadSavepointMetadata(path.get()).getOperatorStates()) {
                ids.add(s.getOperatorID());
            }
            return Optional.of(ids);
        } catch (IOException | RuntimeException e) {
            throw new FlowSyntaxException(
                    flow.line(),
                    "FROM",
                    "could not read the savepoint "
                            + path.get()
                            + " to see whether flow "
                            + flow.name()
                            + " read "
                            + flow.source()
                            + " with a source of its own: "
                            + FlowPlanner.rootMessage(e)
                            + "; SET 'autocdc."
                            + flow.name()
                            + ".source' = 'own' (or 'shared') decides without it");
        }
    }
}
