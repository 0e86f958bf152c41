package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * Keyed state with a {@link WriteBackCache} in front of the states every event reads and writes
 * ({@link StateNames#CACHED_STATES}); every other state is handed out as it is. The caches share
 * one {@link CacheBudget}. Registers the gauges {@value #HITS}, {@value #MISSES}, {@value #BUDGET},
 * {@value #BYTES} and {@value #KEYS} in the flow's metric group.
 */
public final class CachingStateAccess implements KeyedStateAccess {
    /** Reads of a key's hot state that the cache answered. */
    public static final String HITS = "num_state_cache_hits";

    /** Reads of a key's hot state that went to the state backend. */
    public static final String MISSES = "num_state_cache_misses";

    /** The bytes the caches may hold ({@link CacheBudget}). */
    public static final String BUDGET = "state_cache_budget_bytes";

    /** The bytes the caches hold now, as estimated. */
    public static final String BYTES = "state_cache_bytes";

    /** The keys the caches hold now. */
    public static final String KEYS = "state_cache_keys";

    private final KeyedStateAccess states;
    private final KeyContext keys;
    private final int capacity;
    private final CacheBudget budget;
    private final MetricGroup group;

    /** Read by the metric reporter's thread too (the gauges), hence copied on write. */
    private final List<WriteBackCache<?>> caches = new CopyOnWriteArrayList<>();

    /**
     * @param keys the operator whose current key the states follow
     * @param capacity keys kept per cached state
     * @param budget the bytes the caches share
     * @param flow the flow's name (its metric group)
     */
    public CachingStateAccess(
            KeyedStateAccess states,
            KeyContext keys,
            int capacity,
            CacheBudget budget,
            String flow) {
        this.states = states;
        this.keys = keys;
        this.capacity = capacity;
        this.budget = budget;
        this.group = states.getMetricGroup().addGroup("flow", flow);
        group.gauge(BUDGET, (Gauge<Long>) budget::max);
        group.gauge(BYTES, (Gauge<Long>) budget::used);
        group.gauge(KEYS, (Gauge<Long>) this::size);
        group.gauge(HITS, (Gauge<Long>) this::hits);
        group.gauge(MISSES, (Gauge<Long>) this::misses);
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        ValueState<T> state = states.getState(descriptor);
        if (!StateNames.CACHED_STATES.contains(descriptor.getName())) {
            return state;
        }
        return cache(state, WriteBackCache.Sizer.of(descriptor.getSerializer()));
    }

    /**
     * {@code state} behind a write-back cache of its own, within the budget the others share: for a
     * state the function builds over keyed state ({@code sizer} measures its values).
     */
    public <T> WriteBackCache<T> cache(ValueState<T> state, WriteBackCache.Sizer<T> sizer) {
        WriteBackCache<T> cache = new WriteBackCache<>(state, keys, capacity, sizer, budget);
        caches.add(cache);
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

    /** The keys the caches hold now. */
    public long size() {
        return caches.stream().mapToLong(WriteBackCache::size).sum();
    }

    /** Writes every cached change to keyed state; call before each snapshot of it. */
    public void flush() throws IOException {
        for (WriteBackCache<?> cache : caches) {
            cache.flush();
        }
    }
}
