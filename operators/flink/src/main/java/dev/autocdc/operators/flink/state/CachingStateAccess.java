package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * Keyed state with a {@link WriteBackCache} in front of the states every event reads and writes
 * ({@link StateNames#CACHED_STATES}); every other state is handed out as it is. Registers the
 * gauges {@value #HITS} and {@value #MISSES} in the flow's metric group.
 */
public final class CachingStateAccess implements KeyedStateAccess {
    /** Reads of a key's hot state that the cache answered. */
    public static final String HITS = "num_state_cache_hits";

    /** Reads of a key's hot state that went to the state backend. */
    public static final String MISSES = "num_state_cache_misses";

    private final KeyedStateAccess states;
    private final KeyContext keys;
    private final int capacity;
    private final String flow;
    private final List<WriteBackCache<?>> caches = new ArrayList<>(1);

    /**
     * @param keys the operator whose current key the states follow
     * @param capacity keys kept per cached state
     * @param flow the flow's name (its metric group)
     */
    public CachingStateAccess(KeyedStateAccess states, KeyContext keys, int capacity, String flow) {
        this.states = states;
        this.keys = keys;
        this.capacity = capacity;
        this.flow = flow;
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        ValueState<T> state = states.getState(descriptor);
        if (!StateNames.CACHED_STATES.contains(descriptor.getName())) {
            return state;
        }
        WriteBackCache<T> cache = new WriteBackCache<>(state, keys, capacity);
        caches.add(cache);
        MetricGroup group = states.getMetricGroup().addGroup("flow", flow);
        group.gauge(HITS, (Gauge<Long>) cache::hits);
        group.gauge(MISSES, (Gauge<Long>) cache::misses);
        return cache;
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        return states.getMapState(descriptor);
    }

    @Override
    public MetricGroup getMetricGroup() {
        return states.getMetricGroup();
    }

    /** Reads the caches answered. */
    public long hits() {
        return caches.stream().mapToLong(WriteBackCache::hits).sum();
    }

    /** Reads that went to keyed state. */
    public long misses() {
        return caches.stream().mapToLong(WriteBackCache::misses).sum();
    }

    /** Writes every cached change to keyed state; call before each snapshot of it. */
    public void flush() throws IOException {
        for (WriteBackCache<?> cache : caches) {
            cache.flush();
        }
    }
}
