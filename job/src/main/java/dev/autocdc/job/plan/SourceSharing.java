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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * A flow that read through the shared source and now reads on its own starts from its startup mode:
 * refused when it follows from {@code bad-records = 'fail'} alone ({@link #refuseLeaving}), logged
 * when {@code own} says so. A savepoint is known by the operator ids it holds state for, each the
 * hash of a uid ({@link OperatorIDGenerator}); it is read once, when a flow first asks. One that
 * cannot be read is planned as no savepoint, with a warning: in application mode the JobManager
 * plans the job again after a failover, from a savepoint perhaps deleted since, and recovers it
 * from its checkpoint whatever that plan says.
 */
final class SourceSharing {
    private static final Logger LOG = LoggerFactory.getLogger(SourceSharing.class);

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
                if (leftShared(flow)) {
                    LOG.warn(
                            "Flow {} read {} through the source it shared with other flows; set to"
                                    + " 'own', it reads {} from its scan.startup.mode",
                            flow.name(),
                            flow.source(),
                            flow.source());
                }
                return null;
            case SHARED:
                return new ByteReads.Sharing(shared, true);
            default:
                if (restored().isEmpty()) {
                    return new ByteReads.Sharing(shared, false);
                }
                boolean own = holds(StableUids.sourceUid(flow.name(), flow.source()));
                boolean added = !holds(FlowJob.engineUid(flow.name()));
                return own || added ? null : new ByteReads.Sharing(shared, holds(shared));
        }
    }

    /**
     * Refuses a flow on {@code auto} that reads its source as declared ({@code bad-records =
     * 'fail'}) when it read it through the shared source of the savepoint the job restores: read on
     * its own, it would start from its startup mode instead of where it stopped.
     */
    void refuseLeaving(AutoCdcFlow flow, FlowOptions options) {
        if (options.sourceRead(flow.name()) == SourceOptions.SourceRead.AUTO && leftShared(flow)) {
            throw new FlowSyntaxException(
                    flow.line(),
                    "FROM",
                    "flow "
                            + flow.name()
                            + " read "
                            + flow.source()
                            + " through the source it shared with other flows (in the savepoint"
                            + " the job restores); read as declared (bad-records = 'fail') it has"
                            + " a source of its own, which would start from the table's"
                            + " scan.startup.mode instead of where the flow stopped. Keep"
                            + " bad-records = 'dead_letter', or SET 'autocdc."
                            + flow.name()
                            + ".source' = 'own' to read from the startup mode");
        }
    }

    /** Whether the restored savepoint has the flow reading its table through the shared source. */
    private boolean leftShared(AutoCdcFlow flow) {
        return holds(FlowJob.engineUid(flow.name()))
                && !holds(StableUids.sourceUid(flow.name(), flow.source()))
                && holds(StableUids.sharedSourceUid(flow.source()));
    }

    private boolean holds(String uid) {
        return restored().map(ids -> ids.contains(OperatorIDGenerator.fromUid(uid))).orElse(false);
    }

    private Optional<Set<OperatorID>> restored() {
        if (restored == null) {
            restored = load();
        }
        return restored;
    }

    private Optional<Set<OperatorID>> load() {
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
            LOG.warn(
                    "Could not read the savepoint {} to see which flows read their tables with a"
                            + " source of their own; planned as a job without one (every flow"
                            + " sharing its table's source). Set 'autocdc.<flow>.source' to"
                            + " decide without it: {}",
                    path.get(),
                    FlowPlanner.rootMessage(e));
            return Optional.empty();
        }
    }
}
