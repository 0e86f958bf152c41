package dev.autocdc.udfs;

import dev.autocdc.operators.flink.state.KeyedStateAccess;
import dev.autocdc.operators.flink.state.StateValueSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.ExecutionConfig;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.api.dataview.MapView;

/**
 * The engine's keyed states ({@link KeyedStateAccess}) on the two map views a Process Table
 * Function gets per key: every value state is one entry of {@code values} under its name; every map
 * state's entries are entries of {@code maps}, under its name and the key's bytes. Values are
 * stored with the serializers of the engine's state descriptors, so the bytes are those the job
 * stores.
 *
 * <p>Keys are Strings (the bytes read as ISO-8859-1, one char per byte) rather than byte arrays:
 * the heap state backend compares map keys with {@code equals}, which a byte array does not
 * implement by content.
 *
 * <p>The views belong to the key being processed; {@link #bind} hands over the current ones before
 * each event.
 *
 * <p>Flink sees only {@code MAP<STRING, BYTES>} here, so it cannot refuse a restore whose bytes
 * were written for another flow (other columns or types, another target type, another state
 * format), as it refuses one in the job through the serializers' snapshots. Every stored value
 * therefore starts with a fingerprint of what wrote it; a value with another fingerprint fails the
 * read with a message saying what changed, instead of being decoded as garbage.
 */
final class ViewStates implements KeyedStateAccess {
    private final MetricGroup metrics;
    private final int fingerprint;
    private final String layout;

    /** The fingerprints of this call before its last columns were added, with their columns. */
    private final Map<Integer, Integer> earlier;

    private MapView<String, byte[]> values;
    private MapView<String, byte[]> maps;

    /**
     * @param layout what the stored bytes depend on (state format, target type, column names and
     *     types), as text for the error message; its hash is the fingerprint
     */
    ViewStates(MetricGroup metrics, String layout) {
        this(metrics, layout, Map.of());
    }

    /**
     * @param earlier the fingerprints of the layouts with only the first columns, and how many:
     *     values stored before the last columns were added are read with nulls in them
     */
    ViewStates(MetricGroup metrics, String layout, Map<Integer, Integer> earlier) {
        this.metrics = metrics;
        this.layout = layout;
        this.fingerprint = layout.hashCode();
        this.earlier = Map.copyOf(earlier);
    }

    void bind(MapView<String, byte[]> values, MapView<String, byte[]> maps) {
        this.values = values;
        this.maps = maps;
    }

    @Override
    public MetricGroup getMetricGroup() {
        return metrics;
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        descriptor.initializeSerializerUnlessSet(new ExecutionConfig());
        TypeSerializer<T> serializer = descriptor.getSerializer();
        String name = descriptor.getName();
        return new ValueState<>() {
            @Override
            public T value() throws IOException {
                try {
                    byte[] bytes = values.get(name);
                    return bytes == null ? null : read(serializer, bytes);
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Cannot read state " + name, e);
                }
            }

            @Override
            public void update(T value) throws IOException {
                try {
                    if (value == null) {
                        values.remove(name);
                    } else {
                        values.put(name, write(serializer, value));
                    }
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Cannot write state " + name, e);
                }
            }

            @Override
            public void clear() {
                try {
                    values.remove(name);
                } catch (Exception e) {
                    throw new IllegalStateException("Cannot clear state " + name, e);
                }
            }
        };
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        descriptor.initializeSerializerUnlessSet(new ExecutionConfig());
        return new ViewMapState<>(
                descriptor.getName() + '/',
                descriptor.getKeySerializer(),
                descriptor.getValueSerializer());
    }

    /** One map state: the entries of {@code maps} whose key starts with its name and a slash. */
    private final class ViewMapState<K, V> implements MapState<K, V> {
        private final String prefix;
        private final TypeSerializer<K> keys;
        private final TypeSerializer<V> values;

        ViewMapState(String prefix, TypeSerializer<K> keys, TypeSerializer<V> values) {
            this.prefix = prefix;
            this.keys = keys;
            this.values = values;
        }

        private String entryKey(K key) throws IOException {
            return prefix + new String(key(keys, key), StandardCharsets.ISO_8859_1);
        }

        @Override
        public V get(K key) throws Exception {
            byte[] bytes = maps.get(entryKey(key));
            return bytes == null ? null : read(values, bytes);
        }

        @Override
        public void put(K key, V value) throws Exception {
            maps.put(entryKey(key), write(values, value));
        }

        @Override
        public void putAll(Map<K, V> map) throws Exception {
            for (Map.Entry<K, V> e : map.entrySet()) {
                put(e.getKey(), e.getValue());
            }
        }

        @Override
        public void remove(K key) throws Exception {
            maps.remove(entryKey(key));
        }

        @Override
        public boolean contains(K key) throws Exception {
            return maps.contains(entryKey(key));
        }

        /**
         * This state's entries, decoded (a key's map holds one flow's few states: the filter is
         * cheap).
         */
        @Override
        public Iterable<Map.Entry<K, V>> entries() throws Exception {
            List<Map.Entry<K, V>> out = new ArrayList<>();
            for (Map.Entry<String, byte[]> e : maps.entries()) {
                if (e.getKey().startsWith(prefix)) {
                    byte[] key =
                            e.getKey()
                                    .substring(prefix.length())
                                    .getBytes(StandardCharsets.ISO_8859_1);
                    out.add(
                            new AbstractMap.SimpleImmutableEntry<>(
                                    keys.deserialize(new DataInputDeserializer(key)),
                                    read(values, e.getValue())));
                }
            }
            return out;
        }

        @Override
        public Iterable<K> keys() throws Exception {
            List<K> out = new ArrayList<>();
            for (Map.Entry<K, V> e : entries()) {
                out.add(e.getKey());
            }
            return out;
        }

        @Override
        public Iterable<V> values() throws Exception {
            List<V> out = new ArrayList<>();
            for (Map.Entry<K, V> e : entries()) {
                out.add(e.getValue());
            }
            return out;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() throws Exception {
            return entries().iterator();
        }

        @Override
        public boolean isEmpty() throws Exception {
            return !entries().iterator().hasNext();
        }

        @Override
        public void clear() {
            try {
                List<String> mine = new ArrayList<>();
                for (String k : maps.keys()) {
                    if (k.startsWith(prefix)) {
                        mine.add(k);
                    }
                }
                for (String k : mine) {
                    maps.remove(k);
                }
            } catch (Exception e) {
                throw new IllegalStateException("Cannot clear map state " + prefix, e);
            }
        }
    }

    /**
     * A map key's bytes (no fingerprint: a key is found or not, never decoded from foreign bytes).
     */
    private static <T> byte[] key(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(32);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private <T> byte[] write(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(fingerprint);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private <T> T read(TypeSerializer<T> serializer, byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        int written = in.readInt();
        Integer columns = earlier.get(written);
        if (columns != null && serializer instanceof StateValueSerializer<T> stored) {
            return stored.readWithFirstColumns(columns, in);
        }
        if (written != fingerprint) {
            throw new IllegalStateException(
                    "The state restored for this AUTO_CDC call was written by another flow"
                            + " definition or state format (fingerprint "
                            + Integer.toHexString(written)
                            + "); this call is "
                            + layout
                            + " (fingerprint "
                            + Integer.toHexString(fingerprint)
                            + "). Restore with the arguments and input columns that wrote the"
                            + " state (nullable columns may be added after the last one), or start"
                            + " this call under a new uid.");
        }
        return serializer.deserialize(in);
    }
}
