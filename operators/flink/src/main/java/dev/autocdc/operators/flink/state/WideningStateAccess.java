package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;

/**
 * Keyed state of a flow that gained columns since its state was stored ({@code FlowShape}): every
 * value read goes through its serializer and back, which writes a row stored before the columns
 * were added with nulls in them ({@link dev.autocdc.operators.core.StateCodec}). The heap backend
 * restores values as the objects the previous columns' serializer read, so their rows are short;
 * RocksDB migrates the stored bytes on restore ({@link StateValueSerializer.Snapshot}), and the
 * round trip leaves its values as they are. It lasts until the next restore, whose state was
 * written with the current columns: one run after the change reads each value twice.
 */
public final class WideningStateAccess implements KeyedStateAccess {
    private final KeyedStateAccess states;
    private final DataOutputSerializer out = new DataOutputSerializer(256);
    private final DataInputDeserializer in = new DataInputDeserializer();

    public WideningStateAccess(KeyedStateAccess states) {
        this.states = states;
    }

    /** {@code value} written and read again with {@code serializer}; null stays null. */
    public <T> T widen(TypeSerializer<T> serializer, T value) {
        if (value == null || !(serializer instanceof StateValueSerializer)) {
            return value;
        }
        try {
            out.clear();
            serializer.serialize(value, out);
            in.setBuffer(out.getSharedBuffer(), 0, out.length());
            return serializer.deserialize(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        return widened(states.getState(descriptor), descriptor.getSerializer());
    }

    /** {@code state}, whose values {@code serializer} writes, read widened. */
    public <T> ValueState<T> widened(ValueState<T> state, TypeSerializer<T> serializer) {
        return new ValueState<>() {
            @Override
            public T value() throws IOException {
                return widen(serializer, state.value());
            }

            @Override
            public void update(T value) throws IOException {
                state.update(value);
            }

            @Override
            public void clear() {
                state.clear();
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        MapState<K, V> state = states.getMapState(descriptor);
        TypeSerializer<V> serializer = descriptor.getValueSerializer();
        return new MapState<>() {
            @Override
            public V get(K key) throws Exception {
                return widen(serializer, state.get(key));
            }

            @Override
            public void put(K key, V value) throws Exception {
                state.put(key, value);
            }

            @Override
            public void putAll(Map<K, V> map) throws Exception {
                state.putAll(map);
            }

            @Override
            public void remove(K key) throws Exception {
                state.remove(key);
            }

            @Override
            public boolean contains(K key) throws Exception {
                return state.contains(key);
            }

            @Override
            public Iterable<Map.Entry<K, V>> entries() throws Exception {
                Iterable<Map.Entry<K, V>> entries = state.entries();
                return () -> widened(entries.iterator(), serializer);
            }

            @Override
            public Iterable<K> keys() throws Exception {
                return state.keys();
            }

            @Override
            public Iterable<V> values() throws Exception {
                Iterable<V> values = state.values();
                return () -> {
                    Iterator<V> it = values.iterator();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return it.hasNext();
                        }

                        @Override
                        public V next() {
                            return widen(serializer, it.next());
                        }
                    };
                };
            }

            @Override
            public Iterator<Map.Entry<K, V>> iterator() throws Exception {
                return widened(state.iterator(), serializer);
            }

            @Override
            public boolean isEmpty() throws Exception {
                return state.isEmpty();
            }

            @Override
            public void clear() {
                state.clear();
            }
        };
    }

    private <K, V> Iterator<Map.Entry<K, V>> widened(
            Iterator<Map.Entry<K, V>> it, TypeSerializer<V> serializer) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Map.Entry<K, V> next() {
                Map.Entry<K, V> e = it.next();
                return new AbstractMap.SimpleImmutableEntry<>(
                        e.getKey(), widen(serializer, e.getValue()));
            }

            @Override
            public void remove() {
                it.remove();
            }
        };
    }

    @Override
    public MetricGroup getMetricGroup() {
        return states.getMetricGroup();
    }
}
