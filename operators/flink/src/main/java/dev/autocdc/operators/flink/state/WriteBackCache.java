package dev.autocdc.operators.flink.state;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
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
 *       FrequencySketch} counts every read). Room is both a number of keys and bytes of a {@link
 *       CacheBudget} the operator's caches share: a key counts {@link #bytesPerKey()}, estimated
 *       from the serialized size of the values written (every one of the first {@value
 *       #MEASURED_FIRST}, then one in {@value #MEASURE_EVERY}; a moving mean over about {@value
 *       #MEASURED_WINDOW}) times {@value #HEAP_PER_BYTE}, plus {@value #SLOT_BYTES} for its slot,
 *       its map entry and its key. When the estimate grows past the budget, the least recently used
 *       keys are evicted at once. A key refused is read from and written to the state directly, so
 *       keys that each come back less often than the cache turns over (more keys in rotation than
 *       it holds) leave the cached ones in place instead of evicting them all.
 *   <li>A changed value reaches the wrapped state when its key is evicted (the least recently used
 *       one, when a new key would exceed the keys or the bytes allowed, or when the estimate per
 *       key grows past them; written under that key, then the current key is set back) or at {@link
 *       #flush()}. The host calls {@code flush()} before every snapshot of keyed state ({@code
 *       prepareSnapshotPreBarrier} of {@code AutoCdcOperator} and {@code SnapshotApplyOperator}),
 *       and before it reads keyed state another way, so a checkpoint holds every change made before
 *       its barrier; a restore starts with an empty cache. Exactly-once therefore stays Flink's.
 *   <li>Values are kept by reference, as the heap backend keeps them: a caller must not change a
 *       value after reading or writing it (the engine's values are immutable; a snapshot flow's
 *       waiting rows change only what is not their contents: a timer hint and the bookkeeping of
 *       what keyed state holds, {@code WaitingRows}).
 *   <li>Only reads through this object see unflushed values: the wrapped state read another way (a
 *       visit of every key, the State Processor API) is as of the last flush.
 * </ul>
 */
public final class WriteBackCache<T> implements ValueState<T> {
    /** Values measured before sampling starts. */
    static final int MEASURED_FIRST = 256;

    /** After the first ones, one value written in this many is measured. */
    static final int MEASURE_EVERY = 64;

    /**
     * The estimate is the mean of the values measured, then a moving mean over about this many, so
     * that it follows values that grow as their keys' histories do.
     */
    static final int MEASURED_WINDOW = 64;

    /**
     * Heap bytes of a value's objects per byte of its serialized form: Java's object headers,
     * references and boxed fields against a compact binary form. Measured with the live heap of
     * 100k cached keys against none (a class histogram after a full collection): about 7 for SCD1
     * and SCD2 values of W1's rows, 5 for bitemporal W4's; 8 errs on the side of caution.
     */
    static final int HEAP_PER_BYTE = 8;

    /** Heap bytes of a cached key besides its value: the slot, the map's entry, the key object. */
    static final int SLOT_BYTES = 128;

    /** The estimate per key before any value was measured. */
    private static final int FIRST_GUESS = 1024;

    private final ValueState<T> state;
    private final KeyContext keys;
    private final int capacity;
    private final CacheBudget budget;

    /** Measures values written; null: not measured (keys bounded by count alone). */
    private final Sizer<T> sizer;

    private long written;
    private double serializedBytes;
    private long measured;

    /** By key, least recently used first. */
    private final LinkedHashMap<Object, Slot<T>> slots;

    private final FrequencySketch frequencies;

    /**
     * The slots changed since the last flush, so that a flush writes the changes, not every cached
     * key; a slot evicted since is written already (no longer dirty, its value dropped) and
     * skipped, and pruned once the list holds twice the cached keys.
     */
    private final ArrayList<Slot<T>> changed = new ArrayList<>();

    private long hits;
    private long misses;

    /**
     * The serialized bytes of a value, the base of a key's estimated heap ({@link #bytesPerKey()}).
     */
    @FunctionalInterface
    public interface Sizer<T> {
        int bytes(T value) throws IOException;

        /** The size of a value as {@code serializer} writes it. */
        static <T> Sizer<T> of(TypeSerializer<T> serializer) {
            DataOutputSerializer out = new DataOutputSerializer(256);
            return value -> {
                out.clear();
                serializer.serialize(value, out);
                return out.length();
            };
        }
    }

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
     * A cache bounded by its keys alone.
     *
     * @param state the keyed state to cache, scoped to {@code keys}' current key
     * @param keys the operator whose current key the state follows
     * @param capacity the keys kept, at least 1
     */
    public WriteBackCache(ValueState<T> state, KeyContext keys, int capacity) {
        this(state, keys, capacity, (Sizer<T>) null, CacheBudget.unbounded());
    }

    /**
     * A cache bounded by its keys and by bytes shared with the operator's other caches.
     *
     * @param serializer the state's serializer, to measure the values written
     * @param budget the bytes this cache shares; it registers there
     */
    public WriteBackCache(
            ValueState<T> state,
            KeyContext keys,
            int capacity,
            TypeSerializer<T> serializer,
            CacheBudget budget) {
        this(state, keys, capacity, Sizer.of(serializer), budget);
    }

    /**
     * A cache bounded by its keys and by bytes shared with the operator's other caches.
     *
     * @param sizer measures the values written (their serialized size)
     * @param budget the bytes this cache shares; it registers there
     */
    public WriteBackCache(
            ValueState<T> state,
            KeyContext keys,
            int capacity,
            Sizer<T> sizer,
            CacheBudget budget) {
        if (capacity < 1) {
            throw new IllegalArgumentException("A cache holds at least one key, not " + capacity);
        }
        this.state = state;
        this.keys = keys;
        this.capacity = capacity;
        this.sizer = sizer;
        this.budget = budget;
        this.slots = new LinkedHashMap<>(16, 0.75f, true);
        long byBytes = budget.max() / (SLOT_BYTES + HEAP_PER_BYTE * 32L);
        this.frequencies = new FrequencySketch((int) Math.max(1, Math.min(capacity, byBytes)));
        budget.register(this);
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
            if (changed.size() > 2 * slots.size() + 64) {
                changed.removeIf(s -> !s.dirty); // the evicted ones, written already
            }
        }
        measure(value);
    }

    @Override
    public void clear() {
        try {
            update(null);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot clear the key's cached state", e);
        }
    }

    /** Whether the current key's value is cached (a read of it would not reach the state). */
    public boolean holdsCurrentKey() {
        return slots.containsKey(keys.getCurrentKey());
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

    /** The estimated heap bytes of one cached key: see the class comment. */
    public long bytesPerKey() {
        return SLOT_BYTES
                + (long) (HEAP_PER_BYTE * (measured == 0 ? FIRST_GUESS : serializedBytes));
    }

    /** The estimated heap bytes of the keys cached now. */
    public long bytes() {
        return slots.size() * bytesPerKey();
    }

    /** Whether a key not cached may enter: room, or more requests than the key it would evict. */
    private boolean admits(Object key) {
        return (slots.size() < capacity && budget.fits(bytesPerKey()))
                || !slots.isEmpty()
                        && frequencies.estimate(key)
                                > frequencies.estimate(slots.keySet().iterator().next());
    }

    /** Puts the key's slot, then evicts the least recently used keys the room needs. */
    private void admit(Object key, Slot<T> slot) throws IOException {
        slots.put(key, slot);
        evictWhileOver(key);
    }

    /**
     * Evicts the least recently used keys while the cache holds more keys or bytes than it may,
     * keeping {@code current} (the most recently used: the key being read or written).
     */
    private void evictWhileOver(Object key) throws IOException {
        while (slots.size() > 1 && (slots.size() > capacity || !budget.fits(0))) {
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
            evicted.value = null; // still listed as changed until the list is pruned
        }
    }

    /** Measures the serialized size of a value written, for {@link #bytesPerKey()}. */
    private void measure(T value) throws IOException {
        written++;
        if (sizer == null
                || value == null
                || (written > MEASURED_FIRST && written % MEASURE_EVERY != 0)) {
            return;
        }
        int bytes = sizer.bytes(value);
        measured++;
        serializedBytes += (bytes - serializedBytes) / Math.min(measured, MEASURED_WINDOW);
        evictWhileOver(keys.getCurrentKey()); // a grown estimate can leave it over its budget
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
