package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.time.Duration;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;

/**
 * The history retention's timer for the current key (SCD type 2 and bitemporal, semantics §7): the
 * pending pruning pass is in {@value StateNames#HISTORY_PRUNE_AT}. Pruning reads the key's whole
 * history, so a key gets at most a few passes per retention period. Without a retention it
 * schedules nothing and stamps written history with time 0 (which stores in one byte).
 */
final class HistoryPruning {
    private final ValueState<Long> pruneAt;

    /** Null: all history is kept. */
    private final Duration retention;

    HistoryPruning(KeyedStateAccess states, Duration retention) {
        this.pruneAt = states.getState(StateDescriptors.historyPruneAt());
        this.retention = retention;
    }

    /** The time stamped on written history: only the retention reads it. */
    long writeTime(TimerService timers) {
        return retention == null ? 0 : timers.currentProcessingTime();
    }

    /** After an event wrote history: makes sure a pass is pending. */
    void schedule(TimerService timers) throws Exception {
        if (retention != null && pruneAt.value() == null) {
            long at = timers.currentProcessingTime() + retention.toMillis();
            timers.registerProcessingTimeTimer(at);
            pruneAt.update(at);
        }
    }

    /** Whether a pass is due at this timer; if so it is no longer pending. */
    boolean dueAt(long timestamp) throws Exception {
        Long at = pruneAt.value();
        if (at == null || at != timestamp) {
            return false;
        }
        pruneAt.clear();
        return true;
    }

    /** History that closed before this time may leave state, in a pass at {@code timestamp}. */
    long cutoff(long timestamp) {
        return timestamp - retention.toMillis();
    }

    /**
     * After a pass: schedules the next one for when the oldest history left ({@code nextDue}, a
     * write time; -1 when none) is old enough, at least a quarter of the retention from now.
     */
    void rearm(long nextDue, long now, TimerService timers) throws Exception {
        if (nextDue >= 0) {
            long period = retention.toMillis();
            long at = Math.max(nextDue + period, now + Math.max(1, period / 4));
            timers.registerProcessingTimeTimer(at);
            pruneAt.update(at);
        }
    }

    /** The key was forgotten: no pass is pending any more. */
    void cancel() {
        pruneAt.clear();
    }

    /** Whether the key's pass is pending at this time. */
    boolean isPendingAt(long time) throws Exception {
        Long at = pruneAt.value();
        return at != null && at == time;
    }

    /** The key was erased: its pending pass and the timer of it are gone. */
    void forget(TimerService timers) throws Exception {
        Long at = pruneAt.value();
        if (at != null) {
            timers.deleteProcessingTimeTimer(at);
            pruneAt.clear();
        }
    }
}
