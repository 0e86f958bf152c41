package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.TimerService;
import org.junit.jupiter.api.Test;

/**
 * The tombstone expiry of one key, on a state and a timer service that record every access: which
 * transitions read the state, and what each leaves behind (golden access lists typed by hand).
 */
class TombstoneTimerTest {
    private static final Duration RETENTION = Duration.ofMillis(1_000);

    /** One key's expiry state and timers, every access recorded in order. */
    private static final class Recorder implements KeyedStateAccess, TimerService {
        final List<String> accesses = new ArrayList<>();
        Long expiry;
        long now = 100;

        @Override
        @SuppressWarnings("unchecked")
        public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
            assertThat(descriptor.getName()).isEqualTo(AutoCdcFunction.TOMBSTONE_EXPIRY);
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
        timer.track(true, true, r); // a first event that deletes a key never seen
        assertThat(r.take()).containsExactly("read", "timer 1500", "write 1500");
        assertThat(timer.expiresAt(1100)).as("a stale timer").isFalse();
        assertThat(timer.expiresAt(1500)).isTrue();
        assertThat(r.expiry).isNull();
    }

    /**
     * A run that keeps tombstones forever, restored while an expiry was pending: the expiry's timer
     * forgets nothing, and a key that comes back cancels the expiry, so that a later run with a
     * retention again does not forget it while it is present.
     */
    @Test
    void withTombstonesKeptForeverAPendingExpiryIsDroppedNotRun() throws Exception {
        Recorder r = new Recorder();
        r.expiry = 1100L; // left by a run with a retention
        TombstoneTimer forever = new TombstoneTimer(r, null);

        forever.track(false, true, r);
        assertThat(r.take()).as("a delete starts nothing").isEmpty();
        forever.track(true, true, r);
        assertThat(r.take()).isEmpty();
        forever.track(true, false, r);
        assertThat(r.take()).containsExactly("read", "delete timer 1100", "clear");

        r.expiry = 1100L;
        assertThat(forever.expiresAt(1100)).as("the key is kept").isFalse();
        assertThat(r.expiry).isNull();
    }
}
