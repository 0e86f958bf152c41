package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * AUTO CDC for a host that has keyed state but neither timers nor side outputs, such as the SQL
 * function {@code AUTO_CDC} (a Process Table Function). It runs the same engine on the same state
 * layout as {@code AutoCdcFunction} and emits the same changelog for the same events, except:
 *
 * <ul>
 *   <li>no tombstone or history retention (both are processing-time timers): the spec must have
 *       neither, and state lives until the host's state TTL, if any;
 *   <li>no truncates (one key at a time cannot clear the others): a spec with APPLY AS TRUNCATE
 *       WHEN is refused;
 *   <li>dead letters (semantics §11) are counted as in the job and handed to a callback instead of
 *       a side output.
 * </ul>
 *
 * Call {@link #open} once, then {@link #process} for each input row with the host's key context set
 * to the row's key.
 */
public final class AutoCdcProcessor implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Only the retentions use timers and the processing time, and the constructor refused them. */
    private static final TimerService NO_TIMERS =
            new TimerService() {
                @Override
                public long currentProcessingTime() {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked for the processing time");
                }

                @Override
                public long currentWatermark() {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked for the watermark");
                }

                @Override
                public void registerProcessingTimeTimer(long time) {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked for a timer");
                }

                @Override
                public void registerEventTimeTimer(long time) {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked for a timer");
                }

                @Override
                public void deleteProcessingTimeTimer(long time) {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked to delete a timer");
                }

                @Override
                public void deleteEventTimeTimer(long time) {
                    throw new IllegalStateException(
                            "AUTO CDC without timers was asked to delete a timer");
                }
            };

    private final FlowRuntime runtime;

    /**
     * @throws FlowDefinitionException naming the clause, when the spec needs timers or truncates
     */
    public AutoCdcProcessor(EngineSpec spec) {
        if (spec.tombstoneRetention() != null) {
            throw new FlowDefinitionException(
                    EngineOptions.TOMBSTONE_RETENTION.key(),
                    "it needs processing-time timers, which this host lacks; build the spec with"
                            + " tombstoneRetention(null) and bound state with a state TTL instead");
        }
        if (spec.historyRetention() != null) {
            throw new FlowDefinitionException(
                    EngineOptions.HISTORY_RETENTION.key(),
                    "it needs processing-time timers, which this host"
                            + " lacks; remove it (keep all history) or run the flow as a job");
        }
        if (spec.field(ControlColumn.TRUNCATE) >= 0) {
            throw new FlowDefinitionException(
                    "APPLY AS TRUNCATE WHEN",
                    "a truncate clears every key, and this host"
                            + " sees one key at a time; run the flow as a job to apply truncates");
        }
        this.runtime = new FlowRuntime(spec, false, false); // the caller's collector may keep rows
    }

    public EngineSpec spec() {
        return runtime.spec();
    }

    /**
     * Creates the states and metrics (metrics under the group {@code flow/<name>}, as in the job).
     */
    public void open(KeyedStateAccess states) throws Exception {
        runtime.open(states);
    }

    /**
     * Applies one input row of the current key and emits the target's changes into {@code out},
     * each a new {@link org.apache.flink.table.data.GenericRowData} that the collector may keep.
     */
    public void process(RowData input, Collector<RowData> out, Consumer<DeadLetter> deadLetters)
            throws Exception {
        runtime.process(
                input,
                new FlowRuntime.Effects() {
                    @Override
                    public TimerService timerService() {
                        return NO_TIMERS;
                    }

                    @Override
                    public <X> void output(OutputTag<X> tag, X value) {
                        deadLetters.accept((DeadLetter) value);
                    }
                },
                out,
                null);
    }

    /**
     * Counts an input row that the host refused before the engine could read it (a condition the
     * host evaluates failed on it) as the engine counts its own dead letters; returns {@code
     * letter}, the host's.
     */
    public DeadLetter refuse(DeadLetter letter) {
        runtime.metrics().input.inc();
        runtime.metrics().deadLettered.inc();
        return letter;
    }
}
