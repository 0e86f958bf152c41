package dev.autocdc.operators.flink.targets;

import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateDescriptors;
import dev.autocdc.operators.flink.state.StateNames;
import java.time.Duration;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.TimerService;

/**
 * The tombstone retention of the current key (semantics §7): when a key stays deleted for the
 * retention (processing time), its target forgets it. The time it is due is in {@value
 * StateNames#TOMBSTONE_EXPIRY}, set when the key becomes absent. A timer whose time no longer
 * matches the state is stale and does nothing; one is deleted when its key comes back or is erased,
 * unless the history pruning waits for the same time (Flink keeps one timer per key and time).
 */
public final class TombstoneTimer {
    private final ValueState<Long> expiry;

    /** Null: tombstones are kept forever. */
    private final Duration retention;

    public TombstoneTimer(KeyedStateAccess states, Duration retention) {
        this.expiry = states.getState(StateDescriptors.tombstoneExpiry());
        this.retention = retention;
    }

    /**
     * After an event: starts the expiry when the key became absent, cancels it when it came back.
     * Reads state only when the key was absent: a present key has no expiry to keep, so a delete of
     * one starts its expiry without a read. (A present key may hold a stale one, left when it came
     * back in a run that kept tombstones forever: the delete replaces it, and its timer finds the
     * key present and forgets nothing; see {@link #expiresAt}.)
     */
    public void track(boolean wasAbsent, boolean absent, TimerService timers) throws Exception {
        track(wasAbsent, absent, timers, null);
    }

    /**
     * As {@link #track(boolean, boolean, TimerService)}; {@code sharing} is the key's other timer
     * (the history pruning), whose timer at the same time is Flink's one timer too and is kept.
     */
    public void track(
            boolean wasAbsent, boolean absent, TimerService timers, HistoryPruning sharing)
            throws Exception {
        if (retention == null || !(absent || wasAbsent)) {
            return;
        }
        if (!wasAbsent) {
            start(timers);
            return;
        }
        Long at = expiry.value();
        if (absent) {
            if (at == null) {
                start(timers);
            }
        } else if (at != null) {
            // the timer goes too, so that a key erased later leaves no timer behind; Flink keeps
            // one timer per key and time, so one the pruning also waits for stays
            if (sharing == null || !sharing.isPendingAt(at)) {
                timers.deleteProcessingTimeTimer(at);
            }
            expiry.clear();
        }
    }

    private void start(TimerService timers) throws Exception {
        long due = timers.currentProcessingTime() + retention.toMillis();
        timers.registerProcessingTimeTimer(due);
        expiry.update(due);
    }

    /** The key was erased: its pending expiry and the timer of it are gone. */
    void forget(TimerService timers) throws Exception {
        Long at = expiry.value();
        if (at != null) {
            timers.deleteProcessingTimeTimer(at);
            expiry.clear();
        }
    }

    /**
     * Whether the key's tombstone expires at this timer; if so the expiry is done, and the caller
     * forgets the key if it is still absent (a key that came back in a run that kept tombstones
     * forever still holds the expiry of its delete). With tombstones kept forever, an expiry
     * pending from a run that kept them for a while is dropped and the key kept.
     */
    public boolean expiresAt(long timestamp) throws Exception {
        Long at = expiry.value();
        if (at == null || at != timestamp) {
            return false;
        }
        expiry.clear();
        return retention != null;
    }
}
