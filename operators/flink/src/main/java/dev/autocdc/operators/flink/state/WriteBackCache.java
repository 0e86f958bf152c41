package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * A write-back cache in front of one keyed value state: the values of at most {@code capacity} keys
 * are kept as objects, so that a key's consecutive events read the state backend once and write it
 * once, at eviction or flush, instead of once per event each. The anchor is Kafka Streams' record
 * cache.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>{@link #value()}, {@link #update} and {@link #clear()} act on the key that {@code keys}
 *       holds current, as the wrapped state's would; a key not cached is read from the state once.
 *   <li>A key not cached enters the cache when it has room, or when the key is asked for more often
 *       lately than the least recently used key, which it then evicts (TinyLFU: a {@link
 *       FrequencySketch} counts every read). A key refused is read from and written to the state
 *       directly, so keys that each come back less often than the cache turns over (more keys in
 *       rotation than it holds) leave the cached ones in place instead of evicting them all.
 *   <li>A changed value reaches the wrapped state when its key is evicted (the least recently used
 *       one, when a new key would exceed the capacity; written under that key, then the current key
 *       is set back) or at {@link #flush()}. The host calls {@code flush()} before every snapshot
 *       of keyed state ({@code AutoCdcOperator.prepareSnapshotPreBarrier}), so a checkpoint holds
 *       every change made before its barrier; a restore starts with an empty cache. Exactly-once
 *       therefore stays Flink's.
 *   <li>Values are kept by reference, as the heap backend keeps them: a caller must not change a
 *       value after reading or writing it (the engine's values are immutable).
 *   <li>Only reads through this object see unflushed values: the wrapped state read another way (a
 *       visit of every key, the State Processor API) is as of the last flush.
 * </ul>
 */
public final class WriteBackCache<T> implements ValueState<T> {
    private final ValueState<T> state;
    private final KeyContext keys;
    private final int capacity;

    /** By key, least recently used first. */
    private final LinkedHashMap<Object, Slot<T>> slots;

    private final FrequencySketch frequencies;

    /**
     * The slots changed since the last flush, so that a flush writes the changes, not every cached
     * key; a slot evicted since is written already (no longer dirty) and skipped.
     */
    private final ArrayList<Slot<T>> changed = new ArrayList<>();

    private long hits;
    private long misses;

    /** A key's value as the cache has it: null is absent; dirty until written to the state. */
    private static final class Slot<T> {
        final Object key;
        T value;
        boolean dirty;

        Slot(Object key) {
            this.key = key;
        }
    }

    /**
     * @param state the keyed state to cache, scoped to {@code keys}' current key
     * @param keys the operator whose current key the state follows
     * @param capacity the keys kept, at least 1
     */
    public WriteBackCache(ValueState<T> state, KeyContext keys, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("A cache holds at least one key, not " + capacity);
        }
        this.state = state;
        this.keys = keys;
        this.capacity = capacity;
        this.slots = new LinkedHashMap<>(16, 0.75f, true);
        this.frequencies = new FrequencySketch(capacity);
    }

    @Override
    public T value() throws IOException {
        Object key = keys.getCurrentKey();
        frequencies.increment(key);
        Slot<T> slot = slots.get(key);
        if (slot != null) {
            hits++;
            return slot.value;
        }
        misses++;
        T stored = state.value();
        if (admits(key)) {
            slot = new Slot<>(key);
            slot.value = stored;
            admit(key, slot);
        }
        return stored;
    }

    @Override
    public void update(T value) throws IOException {
        Object key = keys.getCurrentKey();
        Slot<T> slot = slots.get(key);
        if (slot == null) { // refused when read, or written before it was read
            if (!admits(key)) {
                write(value);
                return;
            }
            slot = new Slot<>(key);
            admit(key, slot);
        }
        slot.value = value;
        if (!slot.dirty) {
            slot.dirty = true;
            changed.add(slot);
            if (changed.size() > 2 * capacity) {
                changed.removeIf(s -> !s.dirty); // the evicted ones, written already
            }
        }
    }

    @Override
    public void clear() {
        try {
            update(null);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot clear the key's cached state", e);
        }
    }

    /** Writes every changed value to the state; the values stay cached. */
    public void flush() throws IOException {
        Object current = keys.getCurrentKey();
        try {
            for (int i = 0; i < changed.size(); i++) { // (no iterator: once per changed key)
                Slot<T> slot = changed.get(i);
                if (slot.dirty) {
                    keys.setCurrentKey(slot.key);
                    write(slot);
                }
            }
            changed.clear();
        } finally {
            if (current != null) {
                keys.setCurrentKey(current);
            }
        }
    }

    /** Reads of a cached key, and of a key read from the state, since the start (for metrics). */
    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    /** Keys cached now. */
    public int size() {
        return slots.size();
    }

    /** Whether a key not cached may enter: room, or more requests than the key it would evict. */
    private boolean admits(Object key) {
        return slots.size() < capacity
                || frequencies.estimate(key)
                        > frequencies.estimate(slots.keySet().iterator().next());
    }

    private void admit(Object key, Slot<T> slot) throws IOException {
        slots.put(key, slot);
        if (slots.size() > capacity) {
            Iterator<Map.Entry<Object, Slot<T>>> eldest = slots.entrySet().iterator();
            Slot<T> evicted = eldest.next().getValue(); // never the key just admitted
            eldest.remove();
            if (evicted.dirty) {
                keys.setCurrentKey(evicted.key);
                try {
                    write(evicted);
                } finally {
                    keys.setCurrentKey(key);
                }
            }
        }
    }

    private void write(Slot<T> slot) throws IOException {
        write(slot.value);
        slot.dirty = false;
    }

    private void write(T value) throws IOException {
        if (value == null) {
            state.clear();
        } else {
            state.update(value);
        }
    }
}
