package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateNames;
import dev.autocdc.operators.flink.targets.TombstoneTimer;
import dev.autocdc.operators.reference.ReferenceModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.TimerService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tombstone expiry of one key, on a state and a timer service that record every access: which
 * transitions read the state, and what each leaves behind (golden access lists typed by hand).
 */
class TombstoneTimerTest {
    private static final Duration RETENTION = Duration.ofMillis(1_000);
    private static final ReferenceModel.Kind UPSERT = ReferenceModel.Kind.UPSERT;
    private static final ReferenceModel.Kind DELETE = ReferenceModel.Kind.DELETE;

    /** One key's expiry state and timers, every access recorded in order. */
    private static final class Recorder implements KeyedStateAccess, TimerService {
        final List<String> accesses = new ArrayList<>();
        Long expiry;
        long now = 100;

        @Override
        @SuppressWarnings("unchecked")
        public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
            assertThat(descriptor.getName()).isEqualTo(StateNames.TOMBSTONE_EXPIRY);
            return (ValueState<T>)
                    new ValueState<Long>() {
                        @Override
                        public Long value() {
                            accesses.add("read");
                            return expiry;
                        }

                        @Override
                        public void update(Long value) {
                            accesses.add("write " + value);
                            expiry = value;
                        }

                        @Override
                        public void clear() {
                            accesses.add("clear");
                            expiry = null;
                        }
                    };
        }

        @Override
        public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MetricGroup getMetricGroup() {
            throw new UnsupportedOperationException();
        }

        @Override
        public long currentProcessingTime() {
            return now;
        }

        @Override
        public long currentWatermark() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void registerProcessingTimeTimer(long time) {
            accesses.add("timer " + time);
        }

        @Override
        public void registerEventTimeTimer(long time) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void deleteProcessingTimeTimer(long time) {
            accesses.add("delete timer " + time);
        }

        @Override
        public void deleteEventTimeTimer(long time) {
            throw new UnsupportedOperationException();
        }

        List<String> take() {
            List<String> taken = List.copyOf(accesses);
            accesses.clear();
            return taken;
        }
    }

    @Test
    void aDeleteOfAPresentKeyStartsTheExpiryWithoutARead() throws Exception {
        Recorder r = new Recorder();
        TombstoneTimer timer = new TombstoneTimer(r, RETENTION);

        timer.track(false, false, r); // an update of a present key
        assertThat(r.take()).isEmpty();
        timer.track(false, true, r); // deleted
        assertThat(r.take()).containsExactly("timer 1100", "write 1100");
        r.now = 500;
        timer.track(true, true, r); // deleted again: the first expiry stands
        assertThat(r.take()).containsExactly("read");
        timer.track(true, false, r); // back
        assertThat(r.take()).containsExactly("read", "delete timer 1100", "clear");
        // a delete of a key without state (SCD1's, after a truncate cleared it)
        timer.track(true, true, r);
        assertThat(r.take()).containsExactly("read", "timer 1500", "write 1500");
        assertThat(timer.expiresAt(1100)).as("a stale timer").isFalse();
        assertThat(timer.expiresAt(1500)).isTrue();
        assertThat(r.expiry).isNull();
    }

    /**
     * A run that keeps tombstones forever, restored while an expiry was pending, reads nothing for
     * its keys' deletes and comebacks; the pending expiry's timer forgets nothing.
     */
    @Test
    void withTombstonesKeptForeverAPendingExpiryIsDroppedNotRun() throws Exception {
        Recorder r = new Recorder();
        r.expiry = 1100L; // left by a run with a retention
        TombstoneTimer forever = new TombstoneTimer(r, null);

        forever.track(true, false, r);
        forever.track(false, true, r);
        forever.track(true, true, r);
        assertThat(r.take()).isEmpty();
        assertThat(forever.expiresAt(1100)).as("the key is kept").isFalse();
        assertThat(r.expiry).isNull();
    }

    /**
     * A key deleted under a retention comes back in a run that keeps tombstones forever, which
     * leaves the expiry of its delete in state; restored with a retention again, the timer of that
     * expiry finds the key present and forgets nothing: the table equals the reference.
     */
    @ParameterizedTest
    @EnumSource(TargetType.class)
    void aKeyThatCameBackWhileTombstonesWereKeptForeverIsNotForgottenLater(TargetType type)
            throws Exception {
        EngineSpec kept =
                TwoValueFlows.builder("t", type, false).tombstoneRetention(RETENTION).build();
        EngineSpec forever =
                TwoValueFlows.builder("t", type, false).tombstoneRetention(null).build();
        List<ReferenceModel.Event> events =
                List.of(
                        event(type, 1, 1, "a", UPSERT),
                        event(type, 2, 2, null, DELETE),
                        event(type, 4, 3, "b", UPSERT),
                        // older than the key's newest: a key forgotten would take it as new (SCD1)
                        // or refuse it as before its retained history (SCD2, bitemporal)
                        event(type, 3, 4, "c", UPSERT));
        ChangelogTable table = new ChangelogTable(kept.targetPrimaryKey(), OutputMode.RETRACT);
        OperatorSubtaskState state;
        try (OperatorRun run = OperatorRun.start(kept, Backend.ROCKSDB)) {
            run.setProcessingTime(0);
            process(run, type, events.subList(0, 2)); // the delete's expiry is due at 1000
            table.apply(run.newOutput());
            state = run.snapshot();
        }
        try (OperatorRun run = OperatorRun.restore(forever, Backend.ROCKSDB, state)) {
            run.setProcessingTime(0);
            process(run, type, events.subList(2, 3)); // back
            table.apply(run.newOutput());
            state = run.snapshot();
        }
        try (OperatorRun run = OperatorRun.restore(kept, Backend.ROCKSDB, state)) {
            run.setProcessingTime(2_000); // the expiry's timer fires
            assertThat(run.processingTimers()).isZero();
            process(run, type, events.subList(3, 4));
            table.apply(run.newOutput());
            assertThat(run.lateEvents()).isEmpty();
        }
        assertThat(table.rows()).isEqualTo(TwoValueFlows.reference(type, false, events));
    }

    private static ReferenceModel.Event event(
            TargetType type, int seq, int sys, String v1, ReferenceModel.Kind kind) {
        return new ReferenceModel.Event(
                1,
                seq,
                type == TargetType.BITEMPORAL ? sys : null,
                kind,
                Arrays.asList(v1, null),
                null);
    }

    private static void process(OperatorRun run, TargetType type, List<ReferenceModel.Event> events)
            throws Exception {
        for (ReferenceModel.Event e : events) {
            run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
        }
    }
}
