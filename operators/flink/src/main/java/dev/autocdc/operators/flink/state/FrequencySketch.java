package dev.autocdc.operators.flink.state;

/**
 * How often each key was asked for lately, estimated in memory that does not grow with the keys:
 * the admission filter of {@link WriteBackCache} (TinyLFU: a key enters a full cache only when it
 * is asked for more often than the key it would push out). The anchor is Caffeine's frequency
 * sketch.
 *
 * <p>Contract:
 *
 * <ul>
 *   <li>A count-min sketch: each key has 4 counters of 4 bits among {@code width} (a power of two,
 *       at least the capacity given, at most 2<sup>24</sup>, so at most 8 MB), and its estimate is
 *       the least of them. An estimate is never below the key's increments since the last halving
 *       (up to 15, where counters stop); it is above them by what the halvings left of the key's
 *       earlier increments, and when other keys share all 4 of its counters.
 *   <li>After {@code 10 * width} increments every counter is halved (rounded down), so that a key
 *       popular long ago gives way to the keys popular now; after that, every {@code 5 * width}
 *       increments.
 * </ul>
 */
final class FrequencySketch {
    private static final long ONE_IN_EACH_NIBBLE = 0x1111_1111_1111_1111L;
    private static final int MAX_WIDTH = 1 << 24;

    /**
     * The counters, 16 per long: counter {@code i} is bits {@code 4 * (i % 16)} of word {@code i /
     * 16}.
     */
    private final long[] table;

    private final int mask;
    private final int sampleSize;
    private int additions;

    /**
     * @param capacity the keys the cache holds, at least 1
     */
    FrequencySketch(int capacity) {
        int width = Math.max(64, Math.min(MAX_WIDTH, Integer.highestOneBit(capacity - 1) << 1));
        this.table = new long[width / 16];
        this.mask = width - 1;
        this.sampleSize = 10 * width;
    }

    /** Counts one more request of {@code key}. */
    void increment(Object key) {
        int hash = spread(key.hashCode());
        int step = rehash(hash);
        for (int i = 0; i < 4; i++) {
            int index = (hash + i * step) & mask;
            int shift = (index & 15) << 2;
            if (((table[index >>> 4] >>> shift) & 0xF) < 15) {
                table[index >>> 4] += 1L << shift;
            }
        }
        if (++additions == sampleSize) { // every request counts, so a saturated table still ages
            halve();
        }
    }

    /** The requests of {@code key} since the last halving, as estimated (0 to 15). */
    int estimate(Object key) {
        int hash = spread(key.hashCode());
        int step = rehash(hash);
        int least = 15;
        for (int i = 0; i < 4; i++) {
            int index = (hash + i * step) & mask;
            least = Math.min(least, (int) ((table[index >>> 4] >>> ((index & 15) << 2)) & 0xF));
        }
        return least;
    }

    private void halve() {
        for (int i = 0; i < table.length; i++) {
            table[i] = (table[i] >>> 1) & (0x7 * ONE_IN_EACH_NIBBLE);
        }
        additions /= 2;
    }

    /** Mixes a key's hash so that keys with close hashes spread over the table. */
    private static int spread(int h) {
        h ^= h >>> 17;
        h *= 0xed5a_d4bb;
        h ^= h >>> 11;
        h *= 0xac4c_1b51;
        return h ^ (h >>> 15);
    }

    /** The second hash of double hashing, odd so that the 4 counters differ. */
    private static int rehash(int h) {
        h *= 0x31848bab;
        return (h ^ (h >>> 14)) | 1;
    }
}
