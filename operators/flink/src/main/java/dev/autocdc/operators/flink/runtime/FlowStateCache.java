package dev.autocdc.operators.flink.runtime;

import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.StateCacheSpec;
import dev.autocdc.operators.flink.state.CacheBudget;
import dev.autocdc.operators.flink.state.CachingStateAccess;
import dev.autocdc.operators.flink.state.KeyedStateAccess;
import java.io.IOException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * The write-back cache a flow's function keeps in front of its keyed state, as its operator sets it
 * up: the cache follows the operator's current key, and its budget is the spec's {@code
 * state-cache-memory} or else a share of the TaskManager's task heap ({@link CacheBudget#ofTask}).
 * The operator calls {@link #flush()} before every snapshot of keyed state and at the end of input,
 * and before anything reads keyed state around the cache (a visit of every key).
 */
public final class FlowStateCache {
    private final KeyContext operator;
    private final Configuration taskManager;
    private CachingStateAccess cache;

    /**
     * @param operator the operator whose current key the cache follows
     * @param taskManager the configuration of the TaskManager it runs on
     */
    public FlowStateCache(KeyContext operator, Configuration taskManager) {
        this.operator = operator;
        this.taskManager = taskManager;
    }

    /** {@code states} behind the cache the spec asks for; {@code states} itself if none. */
    public KeyedStateAccess open(KeyedStateAccess states, EngineSpec spec) {
        StateCacheSpec settings = spec.stateCache();
        if (settings.keys() <= 0) {
            return states;
        }
        long bytes =
                settings.bytes() > 0
                        ? settings.bytes()
                        : CacheBudget.ofTask(taskManager, settings.shares());
        cache =
                new CachingStateAccess(
                        states,
                        operator,
                        settings.keys(),
                        new CacheBudget(bytes),
                        spec.flow().name());
        return cache;
    }

    /** The cache; null before {@link #open} or when the spec has none. */
    public CachingStateAccess cache() {
        return cache;
    }

    /** Writes the cache's changes to keyed state (nothing without a cache). */
    public void flush() throws IOException {
        if (cache != null) {
            cache.flush();
        }
    }
}
