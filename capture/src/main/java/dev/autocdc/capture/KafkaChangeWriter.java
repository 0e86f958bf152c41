package dev.autocdc.capture;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes Debezium's change events to Kafka: each to the topic Debezium names for its table, with
 * the row's key as the record's key (so that a key's changes stay in one partition, in order) and
 * the change as its value; a delete's tombstone (a null value) as Kafka Connect writes it.
 *
 * <p>A batch is marked processed, so that its offsets may be committed, only once Kafka has
 * acknowledged every record of it: a failed send fails the batch, and the engine stops without
 * committing it (at least once).
 */
final class KafkaChangeWriter
        implements DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>>, AutoCloseable {
    private final KafkaProducer<String, String> producer;

    KafkaChangeWriter(String bootstrapServers) {
        this.producer =
                new KafkaProducer<>(
                        Map.of(
                                "bootstrap.servers", bootstrapServers,
                                "acks", "all",
                                "enable.idempotence", "true",
                                "linger.ms", "5"),
                        new StringSerializer(),
                        new StringSerializer());
    }

    @Override
    public void handleBatch(
            List<ChangeEvent<String, String>> events,
            DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer)
            throws InterruptedException {
        List<Future<RecordMetadata>> sent = new ArrayList<>(events.size());
        for (ChangeEvent<String, String> e : events) {
            sent.add(producer.send(new ProducerRecord<>(e.destination(), e.key(), e.value())));
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get();
            } catch (ExecutionException failed) {
                throw new IllegalStateException(
                        "Kafka refused a change; its batch is not committed", failed.getCause());
            }
        }
        for (ChangeEvent<String, String> e : events) {
            committer.markProcessed(e);
        }
        committer.markBatchFinished();
    }

    @Override
    public boolean supportsTombstoneEvents() {
        return true;
    }

    @Override
    public void close() {
        producer.close();
    }
}
