package dev.autocdc.operators.flink.spec;

import dev.autocdc.operators.core.FlowDefinitionException;
import dev.autocdc.operators.flink.state.CacheBudget;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * The settings a flow's engine applies ({@link EngineSettings}), each declared once: its key,
 * default, meaning (the docs' table of settings) and range. The job reads them as {@code
 * autocdc.<flow>.<key>} and {@link EngineSpec.Builder#build} checks a DataStream user's values,
 * both through {@link #check}, so a range is written in this one place.
 */
public final class EngineOptions {
    private EngineOptions() {}

    /** Default tombstone retention: 2 days, as Databricks' tombstoneGCThresholdInSeconds. */
    public static final Duration DEFAULT_TOMBSTONE_RETENTION = Duration.ofDays(2);

    /** The largest block size: a block, read on a late event, should stay a few kilobytes. */
    public static final int MAX_BLOCK_SIZE = 1024;

    /** The most keys a write-back cache holds (several hundred bytes of heap each). */
    public static final int MAX_STATE_CACHE_KEYS = 10_000_000;

    public static final ConfigOption<Duration> TOMBSTONE_RETENTION =
            ConfigOptions.key("tombstone-retention")
                    .durationType()
                    .defaultValue(DEFAULT_TOMBSTONE_RETENTION)
                    .withDescription(
                            "how long a deleted key is remembered (`forever` keeps it); must exceed"
                                    + " your sources' lateness");

    public static final ConfigOption<Duration> HISTORY_RETENTION =
            ConfigOptions.key("history-retention")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "SCD2 and bitemporal: drop history closed longer ago (it is in the"
                                    + " sink)");

    public static final ConfigOption<Integer> BLOCK_SIZE =
            ConfigOptions.key("block-size")
                    .intType()
                    .defaultValue(EngineSpec.DEFAULT_BLOCK_SIZE)
                    .withDescription(
                            "SCD2 and bitemporal: history entries stored as one state value, 1 to "
                                    + MAX_BLOCK_SIZE
                                    + " (see [state](state.md)); any size restores state written"
                                    + " with any other");

    public static final ConfigOption<Integer> STATE_CACHE_KEYS =
            ConfigOptions.key("state-cache-keys")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "the most keys whose hot state (SCD1's row, the newest entries of an"
                                    + " SCD2 or bitemporal history; FROM SNAPSHOT also a key's"
                                    + " waiting rows and progress) each instance of the flow keeps"
                                    + " as objects on the JVM heap, 0 to "
                                    + MAX_STATE_CACHE_KEYS
                                    + ", within `state-cache-memory`: a key's events in a row then"
                                    + " read and write RocksDB once, when the key is evicted or"
                                    + " before a checkpoint; once full, it takes a key in only when"
                                    + " the key was asked for more often lately than the one it"
                                    + " would evict"
                                    + " ([performance](performance.md#the-write-back-cache)); 0"
                                    + " turns it off. Flows with APPLY AS TRUNCATE WHEN, whose"
                                    + " operator visits every key, run without it"
                                    + " (a number above 0 is refused for them)");

    public static final ConfigOption<MemorySize> STATE_CACHE_MEMORY =
            ConfigOptions.key("state-cache-memory")
                    .memoryType()
                    .noDefaultValue()
                    .withDescription(
                            "the heap each instance of the flow's cache may fill (its keys counted"
                                    + " at an estimated size:"
                                    + " [performance](performance.md#the-write-back-cache)), for"
                                    + " example `64 mb`");

    public static final ConfigOption<Double> SNAPSHOT_HOLD_THRESHOLD =
            ConfigOptions.key("snapshot-hold-threshold")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription(
                            "`FROM SNAPSHOT`: the safety valve. A snapshot with fewer rows than"
                                    + " (1 - this share) times the last complete snapshot's is"
                                    + " held: it and every later snapshot wait, its rows go to the"
                                    + " late events (`snapshot_held`); raise it and restart from"
                                    + " a savepoint to apply it ([snapshots](snapshots.md))");

    /** What a value of {@code option} must be, in words. */
    public static String expected(ConfigOption<?> option) {
        if (option == TOMBSTONE_RETENTION || option == HISTORY_RETENTION) {
            return "a positive duration; write for example '2 d', '12 h' or 'forever'";
        }
        if (option == SNAPSHOT_HOLD_THRESHOLD) {
            return "a share between 0 and 1, such as 0.2";
        }
        if (option == STATE_CACHE_KEYS) {
            return "a whole number from 0 (off) to " + MAX_STATE_CACHE_KEYS;
        }
        if (option == STATE_CACHE_MEMORY) {
            return "a memory size of at least "
                    + CacheBudget.MIN_BYTES / 1024
                    + " kb, such as '64 mb'";
        }
        if (option == BLOCK_SIZE) {
            return "a whole number from 1 to " + MAX_BLOCK_SIZE;
        }
        throw new IllegalArgumentException("not an engine option: " + option.key());
    }

    /** Whether {@code value} is in {@code option}'s range; null (no retention, no threshold) is. */
    public static boolean inRange(ConfigOption<?> option, Object value) {
        if (value == null) {
            return option != BLOCK_SIZE;
        }
        if (option == STATE_CACHE_MEMORY) {
            return ((MemorySize) value).getBytes() >= CacheBudget.MIN_BYTES;
        }
        if (option == TOMBSTONE_RETENTION || option == HISTORY_RETENTION) {
            Duration d = (Duration) value;
            return !d.isNegative() && !d.isZero();
        }
        if (option == SNAPSHOT_HOLD_THRESHOLD) {
            double share = (Double) value;
            return share > 0 && share < 1;
        }
        int n = (Integer) value;
        return option == BLOCK_SIZE
                ? n >= 1 && n <= MAX_BLOCK_SIZE
                : n >= 0 && n <= MAX_STATE_CACHE_KEYS;
    }

    /**
     * {@code value}, or a {@link FlowDefinitionException} naming the option (its clause) when it is
     * out of range.
     */
    public static <T> T check(ConfigOption<T> option, T value) {
        if (!inRange(option, value)) {
            throw new FlowDefinitionException(
                    option.key(), "'" + value + "' is not " + expected(option));
        }
        return value;
    }
}
