package dev.autocdc.operators.flink.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSpec;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.junit.jupiter.api.Test;

/**
 * The write-back cache's memory: its budget from the task's heap, its keys counted at their
 * measured size, several caches within one budget, and the cache on by default.
 */
class CacheBudgetTest {

    /**
     * 100 ASCII characters and a number: 104 to 105 bytes serialized (length, then a byte each).
     */
    private static String value(int i) {
        return "x".repeat(100) + i;
    }

    @Test
    void aCacheKeepsAsManyKeysAsItsBytesHoldAndLosesNoValue() throws Exception {
        RecordingState state = new RecordingState();
        long perKey = WriteBackCache.SLOT_BYTES + WriteBackCache.HEAP_PER_BYTE * 104L;
        CacheBudget budget = new CacheBudget(20 * perKey);
        WriteBackCache<String> cache =
                new WriteBackCache<>(state, state, 1_000_000, StringSerializer.INSTANCE, budget);
        for (int i = 0; i < 1_000; i++) {
            state.setCurrentKey(i);
            cache.value();
            cache.update(value(i));
            assertThat(budget.used()).as("after key %d", i).isLessThanOrEqualTo(budget.max());
        }
        assertThat(cache.bytesPerKey())
                .isBetween(perKey - 2 * WriteBackCache.HEAP_PER_BYTE, perKey);
        assertThat(cache.size()).isBetween(20, 21);
        cache.flush();
        for (int i = 0; i < 1_000; i++) {
            assertThat(state.stored.get(i)).isEqualTo(value(i));
        }
    }

    /** Values that grow as their keys' histories do: the estimate follows, the cache shrinks. */
    @Test
    void aCacheWhoseValuesGrowShrinksToStayWithinItsBytes() throws Exception {
        RecordingState state = new RecordingState();
        CacheBudget budget = new CacheBudget(256 * 1024);
        WriteBackCache<String> cache =
                new WriteBackCache<>(state, state, 1_000_000, StringSerializer.INSTANCE, budget);
        int afterFirst = 0;
        for (int round = 1; round <= 8; round++) {
            for (int i = 0; i < 2_000; i++) {
                state.setCurrentKey(i);
                String v = cache.value();
                cache.update((v == null ? "" : v) + "x".repeat(20) + i);
                assertThat(budget.used())
                        .as("round %d, key %d", round, i)
                        .isLessThanOrEqualTo(budget.max());
            }
            afterFirst = round == 1 ? cache.size() : afterFirst;
        }
        assertThat(cache.size()).as("keys held at the end").isLessThan(afterFirst / 2);
        cache.flush();
        for (int i = 0; i < 2_000; i++) {
            assertThat(state.stored.get(i)).hasSize(8 * (20 + String.valueOf(i).length()));
        }
    }

    @Test
    void twoCachesStayWithinTheBudgetTheyShare() throws Exception {
        RecordingState first = new RecordingState();
        RecordingState second = new RecordingState();
        CacheBudget budget = new CacheBudget(64 * 1024);
        WriteBackCache<String> a =
                new WriteBackCache<>(first, first, 1_000_000, StringSerializer.INSTANCE, budget);
        WriteBackCache<String> b =
                new WriteBackCache<>(second, second, 1_000_000, StringSerializer.INSTANCE, budget);
        for (int i = 0; i < 2_000; i++) {
            first.setCurrentKey(i);
            a.update(value(i));
            second.setCurrentKey(i);
            b.update(value(i) + value(i));
            assertThat(budget.used()).isLessThanOrEqualTo(budget.max());
        }
        assertThat(a.size()).isPositive();
        assertThat(b.size()).isPositive();
        assertThat(budget.used()).isEqualTo(a.bytes() + b.bytes());
    }

    @Test
    void theBudgetIsAQuarterOfASlotsTaskHeapDividedAmongTheJobsFlows() {
        Configuration tm = new Configuration();
        tm.set(TaskManagerOptions.TASK_HEAP_MEMORY, MemorySize.parse("1 gb"));
        tm.set(TaskManagerOptions.NUM_TASK_SLOTS, 4);
        assertThat(CacheBudget.ofTask(tm, 2)).isEqualTo((1L << 30) / 4 / 4 / 2);
        // a local run declares a task heap larger than the JVM's: half the JVM's heap stands for it
        Configuration local = new Configuration();
        local.set(TaskManagerOptions.TASK_HEAP_MEMORY, MemorySize.parse("1 tb"));
        assertThat(CacheBudget.ofTask(local, 1))
                .isEqualTo((long) (Runtime.getRuntime().maxMemory() / 2 * 0.25));
        assertThat(CacheBudget.ofTask(new Configuration(), 1))
                .isEqualTo(CacheBudget.ofTask(local, 1));
        Configuration small = new Configuration();
        small.set(TaskManagerOptions.TASK_HEAP_MEMORY, MemorySize.parse("1 mb"));
        small.set(TaskManagerOptions.NUM_TASK_SLOTS, 8);
        assertThat(CacheBudget.ofTask(small, 10)).isEqualTo(CacheBudget.MIN_BYTES);
    }

    @Test
    void theCacheIsOnByDefaultExceptWithTruncates() {
        RowType input =
                RowType.of(
                        new LogicalType[] {new IntType(false), new IntType()},
                        new String[] {"id", ControlColumn.SEQUENCE.columnName()});
        assertThat(EngineSpec.builder("f", TargetType.SCD2, input).keys("id").build().stateCache())
                .satisfies(c -> assertThat(c.keys()).isEqualTo(EngineOptions.MAX_STATE_CACHE_KEYS))
                .satisfies(c -> assertThat(c.bytes()).isZero())
                .satisfies(c -> assertThat(c.shares()).isEqualTo(1));
        assertThat(
                        EngineSpec.builder("s", TargetType.SCD2, input)
                                .keys("id")
                                .fromSnapshot()
                                .build()
                                .stateCache()
                                .keys())
                .isEqualTo(EngineOptions.MAX_STATE_CACHE_KEYS);
        RowType truncating =
                RowType.of(
                        new LogicalType[] {new IntType(false), new IntType(), new BooleanType()},
                        new String[] {
                            "id",
                            ControlColumn.SEQUENCE.columnName(),
                            ControlColumn.TRUNCATE.columnName()
                        });
        assertThat(
                        EngineSpec.builder("t", TargetType.SCD1, truncating)
                                .keys("id")
                                .build()
                                .stateCache()
                                .keys())
                .isZero();
        assertThat(
                        EngineSpec.builder("m", TargetType.SCD1, input)
                                .keys("id")
                                .stateCacheKeys(0)
                                .stateCacheMemory(MemorySize.parse("8 mb"))
                                .stateCacheShares(3)
                                .build()
                                .stateCache())
                .isEqualTo(new dev.autocdc.operators.flink.spec.StateCacheSpec(0, 8 << 20, 3));
    }
}
