package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.state.RecordingState;
import dev.autocdc.operators.flink.state.WriteBackCache;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The write-back cache of hot state: its contract on a state that records every access, then whole
 * flows with a cache of one to three keys over six keys (so that keys are evicted all the time),
 * killed after a barrier and restored from it, equal to the reference model.
 */
class WriteBackCacheTest {

    @Test
    void readsAKeyOnceAndWritesItOnEvictionAndFlush() throws Exception {
        RecordingState state = new RecordingState();
        state.stored.put("a", "a0");
        WriteBackCache<String> cache = new WriteBackCache<>(state, state, 2);
        state.setCurrentKey("a");
        assertThat(cache.value()).isEqualTo("a0");
        cache.update("a1");
        assertThat(cache.value()).isEqualTo("a1");
        cache.update("a2");
        state.setCurrentKey("b");
        cache.update("b1"); // written before read: never read
        state.setCurrentKey("a");
        assertThat(cache.value()).isEqualTo("a2"); // a is now the most recently used
        state.setCurrentKey("c");
        assertThat(cache.value()).isNull(); // evicts b, the least recently used
        assertThat(state.getCurrentKey()).as("the current key after an eviction").isEqualTo("c");
        cache.clear();
        assertThat(state.accesses).containsExactly("read a", "read c", "write b=b1");
        state.accesses.clear();
        cache.flush();
        assertThat(state.accesses).containsExactlyInAnyOrder("write a=a2", "clear c");
        assertThat(state.getCurrentKey()).isEqualTo("c");
        state.accesses.clear();
        cache.flush(); // nothing changed since
        state.setCurrentKey("a");
        assertThat(cache.value()).isEqualTo("a2");
        assertThat(state.accesses).isEmpty();
        assertThat(state.stored).containsOnly(Map.entry("a", "a2"), Map.entry("b", "b1"));
        assertThat(cache.hits()).isEqualTo(3);
        assertThat(cache.misses()).isEqualTo(2);
        assertThat(cache.size()).isEqualTo(2);
    }

    /**
     * A full cache takes a key in only when the key is asked for more often than the least recently
     * used one: keys in rotation that each come back less often leave the cached keys in place and
     * go to the state directly, read and written through.
     */
    @Test
    void aFullCacheRefusesKeysAskedForLessOftenThanTheOneTheyWouldEvict() throws Exception {
        RecordingState state = new RecordingState();
        WriteBackCache<String> cache = new WriteBackCache<>(state, state, 2);
        for (String key : List.of("a", "b", "a", "b")) { // asked for twice each, cached
            state.setCurrentKey(key);
            cache.update(cache.value() == null ? key + "1" : key + "2");
        }
        assertThat(state.accesses).containsExactly("read a", "read b");
        state.accesses.clear();
        state.setCurrentKey("c");
        assertThat(cache.value()).isNull(); // asked for once, against a's twice: refused
        cache.update("c1");
        assertThat(cache.value()).isEqualTo("c1"); // twice against twice: refused again
        cache.update("c2");
        assertThat(state.accesses).containsExactly("read c", "write c=c1", "read c", "write c=c2");
        assertThat(cache.size()).isEqualTo(2);
        state.accesses.clear();
        assertThat(cache.value()).isEqualTo("c2"); // three times: evicts a, the least recently used
        assertThat(state.accesses).containsExactly("read c", "write a=a2");
        assertThat(state.getCurrentKey()).isEqualTo("c");
        state.accesses.clear();
        cache.update("c3");
        state.setCurrentKey("b");
        assertThat(cache.value()).isEqualTo("b2");
        assertThat(state.accesses).as("b and c are cached").isEmpty();
        cache.flush();
        assertThat(state.accesses).containsExactlyInAnyOrder("write b=b2", "write c=c3");
        assertThat(cache.hits()).isEqualTo(3);
        assertThat(cache.misses()).isEqualTo(5);
    }

    /**
     * State accesses counted over 200k events on 10k keys and the flush at the end, against the 2
     * per event (a read and a write) of no cache. Keys in rotation (W1's order: each key back after
     * all the others) with a cache of a tenth of them: no worse than no cache (a
     * least-recently-used cache without the admission filter makes 2.000, every read a miss and
     * every miss an eviction). Hot keys (W7's order: every other event on 1% of the keys in turn,
     * the rest on the others in turn): a cache of a tenth of the keys answers every hot read after
     * the first pass; a cache of exactly the hot keys still answers over half of them, where a
     * least-recently-used one answers none (the cold keys between two reads of a hot key push it
     * out).
     */
    @Test
    void aFullCacheKeepsItsHotKeysAndCostsNoMoreThanNone() throws Exception {
        int keys = 10_000;
        int events = 20 * keys;
        int hot = keys / 100;
        assertThat(accessesPerEvent(keys, events, keys / 10, i -> i % keys)).isLessThan(1.97);
        IntUnaryOperator hotOrder = i -> i % 2 == 0 ? (i / 2) % hot : hot + (i / 2) % (keys - hot);
        assertThat(accessesPerEvent(keys, events, keys / 10, hotOrder)).isLessThan(1.0);
        assertThat(accessesPerEvent(keys, events, hot, hotOrder)).isLessThan(1.5);
    }

    /** Runs {@code events} reads and writes of the keys {@code order} gives through a cache. */
    private static double accessesPerEvent(
            int keys, int events, int capacity, IntUnaryOperator order) throws Exception {
        RecordingState state = new RecordingState();
        WriteBackCache<String> cache = new WriteBackCache<>(state, state, capacity);
        for (int i = 0; i < events; i++) {
            state.setCurrentKey(order.applyAsInt(i));
            cache.value();
            cache.update("v" + i);
        }
        assertThat(cache.hits() + cache.misses()).isEqualTo(events);
        cache.flush(); // what it still holds is written too, as the next checkpoint would
        return state.accesses.size() / (double) events;
    }

    /**
     * Each round runs a cached flow up to a barrier, snapshots it, goes on past the barrier and is
     * killed (the rows it emitted after the barrier are lost, as an exactly-once sink drops them);
     * a run restored from the barrier, cached or not, takes over. The table equals the reference; a
     * run restored without the cache reads what the flush wrote as its own state.
     */
    @ParameterizedTest
    @EnumSource(TargetType.class)
    void aCachedFlowKilledAfterABarrierEqualsTheReference(TargetType type) throws Exception {
        Random random = new Random(11 + type.ordinal());
        long hits = 0;
        long misses = 0;
        for (int round = 0; round < 24; round++) {
            Backend backend = round % 3 == 2 ? Backend.HASHMAP : Backend.ROCKSDB;
            boolean ignoreNull = type != TargetType.BITEMPORAL && round % 2 == 1;
            int capacity = 1 + random.nextInt(3);
            EngineSpec cached = spec(type, ignoreNull, capacity);
            EngineSpec restored = spec(type, ignoreNull, round % 4 < 2 ? 0 : 1 + random.nextInt(3));
            List<ReferenceModel.Event> events = new ArrayList<>();
            int n = 20 + random.nextInt(60);
            for (int i = 0; i < n; i++) {
                events.add(TwoValueFlows.randomEvent(random, type, 1 + random.nextInt(6), 12));
            }
            int barrier = random.nextInt(n);
            int killed = barrier + random.nextInt(n - barrier + 1);
            ChangelogTable table =
                    new ChangelogTable(cached.targetPrimaryKey(), OutputMode.RETRACT);
            OperatorSubtaskState state;
            try (OperatorRun run = OperatorRun.start(cached, backend)) {
                for (ReferenceModel.Event e : events.subList(0, barrier)) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
                state = run.snapshot();
                for (ReferenceModel.Event e : events.subList(barrier, killed)) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                hits += run.stateCacheHits();
                misses += run.stateCacheMisses();
                assertThat(run.deadLetters()).isEmpty();
            }
            try (OperatorRun run = OperatorRun.restore(restored, backend, state)) {
                for (ReferenceModel.Event e : events.subList(barrier, n)) {
                    run.process(run.input(TwoValueFlows.inputRow(e, type, false)));
                }
                table.apply(run.newOutput());
                assertThat(run.deadLetters()).isEmpty();
            }
            assertThat(table.rows())
                    .as(type + " on " + backend + ", cache " + capacity + ", events " + events)
                    .isEqualTo(TwoValueFlows.reference(type, ignoreNull, events));
        }
        assertThat(hits).as("reads the cache answered").isGreaterThan(100);
        assertThat(misses).as("reads that went to the state").isGreaterThan(100);
    }

    /**
     * Flows with truncates, whose operator visits every key's state, run without the cache: the
     * setting is refused (CacheBudgetTest: they have none by default, flows from snapshots have
     * one).
     */
    @Test
    void flowsWithTruncatesRefuseTheCache() {
        RowType input =
                RowType.of(
                        new LogicalType[] {new IntType(false), new IntType(), new BooleanType()},
                        new String[] {
                            "id",
                            ControlColumn.SEQUENCE.columnName(),
                            ControlColumn.TRUNCATE.columnName()
                        });
        assertThatThrownBy(
                        () ->
                                EngineSpec.builder("t", TargetType.SCD1, input)
                                        .keys("id")
                                        .stateCacheKeys(10)
                                        .build())
                .isInstanceOf(FlowDefinitionException.class)
                .hasMessageContaining("state-cache-keys")
                .hasMessageContaining("APPLY AS TRUNCATE WHEN runs without the write-back cache");
    }

    private static EngineSpec spec(TargetType type, boolean ignoreNull, int cacheKeys) {
        EngineSpec.Builder b = TwoValueFlows.builder("cached", type, false);
        if (ignoreNull) {
            b.ignoreNullUpdates();
        }
        return b.stateCacheKeys(cacheKeys).build();
    }
}
