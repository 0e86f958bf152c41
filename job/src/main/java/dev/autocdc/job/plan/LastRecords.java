package dev.autocdc.job.plan;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where a partition's readable records end: the offset just after its last record a consumer
 * returns. That is the end offset, unless the partition ends in what no consumer returns: a
 * transaction's commit or abort marker (a topic written with transactions, such as an exactly-once
 * sink's or Kafka Connect's), or records of an aborted transaction. Flink's Kafka source commits
 * the offset after the last record it emitted, so a triggered run compares its commits with these
 * offsets, not with the end ones, or it would wait for ever on a transactional topic.
 */
final class LastRecords {
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private LastRecords() {}

    /**
     * For each partition with records between its earliest and its end offset, the offset after its
     * last readable one; a partition with none readable is left out.
     *
     * @param client the table's Kafka client settings ({@code properties.*}), its {@code
     *     isolation.level} among them, as the source reads (Kafka's default: read_uncommitted)
     */
    static Map<TopicPartition, Long> after(
            Map<String, Object> client,
            Map<TopicPartition, Long> earliest,
            Map<TopicPartition, Long> end)
            throws InterruptedException {
        Map<String, Object> settings = new HashMap<>(client);
        settings.remove("group.id"); // read by assignment: nothing committed, no group joined
        settings.put("enable.auto.commit", "false");
        Map<TopicPartition, Long> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
                long first = earliest.get(e.getKey());
                if (e.getValue() > first) {
                    Long after = after(consumer, e.getKey(), first, e.getValue());
                    if (after != null) {
                        out.put(e.getKey(), after);
                    }
                }
            }
        }
        return out;
    }

    /** Reads back from the end, in widening windows, until a window holds a record. */
    private static Long after(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition p, long first, long end)
            throws InterruptedException {
        consumer.assign(List.of(p));
        for (long window = 16; ; window *= 16) {
            long from = Math.max(first, end - window);
            long last = lastIn(consumer, p, from, end);
            if (last >= 0) {
                return last + 1;
            }
            if (from == first) {
                return null; // markers and aborted records only
            }
        }
    }

    /** The last record's offset in [from, end); -1 when there is none. */
    private static long lastIn(
            KafkaConsumer<byte[], byte[]> consumer, TopicPartition p, long from, long end)
            throws InterruptedException {
        consumer.seek(p, from);
        long last = -1;
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (consumer.position(p) < end) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL).records(p)) {
                if (r.offset() < end) {
                    last = Math.max(last, r.offset());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "could not read partition "
                                + p
                                + " up to offset "
                                + end
                                + " in "
                                + TIMEOUT);
            }
        }
        return last;
    }
}
