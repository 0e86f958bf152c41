package dev.autocdc.operators.flink.state;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.metrics.MetricGroup;

/**
 * Where an AUTO CDC runtime gets its keyed state and its metrics. In a DataStream job it is the
 * function's {@link RuntimeContext} ({@link #of}); the SQL function {@code AUTO_CDC} backs it with
 * the state views of a Process Table Function. Every state handed out must be scoped to the key of
 * the event being processed, as Flink's keyed state is.
 */
public interface KeyedStateAccess {

    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);

    MetricGroup getMetricGroup();

    /** The keyed state of a keyed function. */
    static KeyedStateAccess of(RuntimeContext context) {
        return new KeyedStateAccess() {
            @Override
            public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
                return context.getState(descriptor);
            }

            @Override
            public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
                return context.getMapState(descriptor);
            }

            @Override
            public MetricGroup getMetricGroup() {
                return context.getMetricGroup();
            }
        };
    }
}
