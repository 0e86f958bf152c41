package dev.autocdc.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Bad input at volume, on the cluster: 100,000 {@code debezium-json} records on Kafka, 10% of them
 * broken (garbage bytes, invalid UTF-8, wrong types, a null key, a null sequence, an unknown
 * operation, a bad COLUMNS TO UPDATE list, and 1 MB records). Every broken record reaches the
 * dead-letter topic once, with its reason, its coordinates and its bytes (those the engine's rules
 * refuse too: the job checks them before the keyed exchange); every valid one is applied: the SCD
 * type 2 target equals the reference model over the valid records; the job never restarts. A 1 MB
 * record's dead letter is over Kafka's default 1 MB limits: the dead-letter topic and its producer
 * are set for 8 MB (docs/bad-input.md).
 */
@ResourceLock(SharedCluster.FIRST)
class BadInputAtVolumeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final int RECORDS = Integer.getInteger("autocdc.bad.records", 100_000);

    private static final int KEYS = RECORDS / 20;

    /** Room for a dead letter of a 1 MB record: its payload, and its bytes in base64. */
    private static final int LETTER_BYTES = 8 * 1024 * 1024;

    @TempDir Path dir;

    /** A record as written: its bytes, and the reason it must be refused for (null: valid). */
    private record Written(byte[] bytes, String reason) {}

    @Test
    void brokenRecordsAreDeadLettersAndTheRestIsApplied() throws Exception {
        Random random = new Random(41);
        List<Written> records = new ArrayList<>();
        List<Event> valid = new ArrayList<>();
        int broken = RECORDS / 10;
        Map<Integer, Set<Integer>> sequences = new HashMap<>();
        for (int key = 0; records.size() < RECORDS - broken; key = (key + 1) % KEYS) {
            addValid(
                    records,
                    valid,
                    random,
                    key,
                    sequences.computeIfAbsent(key, k -> new HashSet<>()));
        }
        addBroken(records, random, broken);
        Collections.shuffle(records, random);

        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            kafka.createTopic("src", 4);
            kafka.createTopic("target", 2);
            kafka.admin()
                    .createTopics(
                            List.of(
                                    new NewTopic("dlq", 1, (short) 1)
                                            .configs(
                                                    Map.of(
                                                            "max.message.bytes",
                                                            "" + LETTER_BYTES))))
                    .all()
                    .get();
            Map<String, Written> byOffset = produce(kafka, records);
            Path flow = dir.resolve("bad.sql");
            Files.writeString(flow, flow(kafka.bootstrapServers()));
            LocalCluster cluster = SharedCluster.get(BadInputAtVolumeTest.class);
            try {
                String job = cluster.submit(dir.resolve("run.log"), flow, 2, null);
                Topics.awaitTable(
                        kafka,
                        "target",
                        Topics.Read.UPSERT,
                        HistoryWorkload.SCD2_COLUMNS,
                        ReferenceModel.scd2(
                                valid,
                                new ReferenceModel.Options(
                                        List.of("v"), Set.of(), true, null, null, null)),
                        Duration.ofMinutes(5));
                Map<String, Integer> reasons = checkLetters(kafka, byOffset, broken);
                assertThat(restarts(cluster, job)).as("the job's restarts").isZero();
                System.out.println(
                        "BadInputAtVolumeTest: %d records, %d applied, %d dead letters %s, 0 restarts"
                                .formatted(RECORDS, RECORDS - broken, broken, reasons));
            } finally {
                SharedCluster.release(BadInputAtVolumeTest.class);
            }
        }
    }

    /**
     * A valid create (upsert) or delete of {@code key}, with COLUMNS TO UPDATE sometimes set; a
     * third arrive late (a sequence below ones written before), none shares a sequence of its key.
     */
    private static void addValid(
            List<Written> records, List<Event> valid, Random random, int key, Set<Integer> used) {
        int seq;
        do {
            seq = records.size() + 1;
            seq = random.nextInt(3) == 0 ? seq - random.nextInt(Math.min(seq, 50_000)) : seq;
        } while (!used.add(seq));
        boolean delete = random.nextInt(10) == 0;
        String v = "v" + random.nextInt(5);
        int pick = random.nextInt(10);
        List<String> cols = pick < 7 ? null : pick < 9 ? List.of("v") : List.of();
        String row = row(key, "\"" + v + "\"", "" + seq, cols == null ? "null" : json(cols));
        String record =
                delete
                        ? "{\"before\": " + row + ", \"after\": null, \"op\": \"d\"}"
                        : "{\"before\": null, \"after\": " + row + ", \"op\": \"c\"}";
        records.add(new Written(record.getBytes(StandardCharsets.UTF_8), null));
        valid.add(
                new Event(
                        key,
                        seq,
                        null,
                        delete ? Kind.DELETE : Kind.UPSERT,
                        List.of(v),
                        cols == null ? null : Set.copyOf(cols)));
    }

    private static String row(int key, String v, String seq, String cols) {
        return "{\"id\": %d, \"v\": %s, \"addr\": {\"city\": \"c%d\", \"zip\": %d}, \"seq\": %s, \"cols\": %s}"
                .formatted(key, v, key % 7, key, seq, cols);
    }

    private static String json(List<String> cols) {
        List<String> quoted = new ArrayList<>();
        cols.forEach(c -> quoted.add("\"" + c + "\""));
        return "[" + String.join(", ", quoted) + "]";
    }

    /** {@code n} broken records of eight kinds, 10 of them 1 MB. */
    private static void addBroken(List<Written> records, Random random, int n) {
        String big = "x".repeat(1_000_000);
        for (int i = 0; i < n; i++) {
            int key = random.nextInt(KEYS);
            String ok = "{\"before\": null, \"after\": %s, \"op\": \"c\"}";
            Written w =
                    switch (i % 8) {
                        case 0 -> {
                            byte[] garbage = new byte[1 + random.nextInt(200)];
                            random.nextBytes(garbage);
                            garbage[0] = (byte) '#'; // never a JSON value
                            yield new Written(garbage, "PARSE_ERROR");
                        }
                        case 1 -> {
                            byte[] text =
                                    ok.formatted(row(key, "\"ab\"", "1", "null"))
                                            .getBytes(StandardCharsets.UTF_8);
                            int at = indexOf(text, "ab");
                            text[at] = (byte) 0xC3; // a UTF-8 lead byte followed by "b"
                            yield new Written(text, "PARSE_ERROR");
                        }
                        case 2 ->
                                new Written(
                                        ok.formatted(row(key, "\"a\"", "\"not a number\"", "null"))
                                                .getBytes(StandardCharsets.UTF_8),
                                        "PARSE_ERROR");
                        case 3 ->
                                new Written(
                                        ok.formatted(row(key, "\"a\"", "5", "null"))
                                                .replace("\"id\": " + key, "\"id\": null")
                                                .getBytes(StandardCharsets.UTF_8),
                                        "NULL_KEY");
                        case 4 ->
                                new Written(
                                        ok.formatted(row(key, "\"a\"", "null", "null"))
                                                .getBytes(StandardCharsets.UTF_8),
                                        "NULL_SEQUENCE");
                        case 5 ->
                                new Written(
                                        ok.formatted(row(key, "\"a\"", "5", "null"))
                                                .replace("\"op\": \"c\"", "\"op\": \"x\"")
                                                .getBytes(StandardCharsets.UTF_8),
                                        "PARSE_ERROR");
                        case 6 ->
                                new Written(
                                        ok.formatted(row(key, "\"a\"", "5", "[\"v\", \"nope\"]"))
                                                .getBytes(StandardCharsets.UTF_8),
                                        "BAD_COLUMNS_TO_UPDATE");
                        default -> {
                            if (i % 800 == 7) { // 10 per 8,000 broken: 1 MB, null key or garbage
                                boolean parse = (i / 800) % 2 == 0;
                                String text =
                                        ok.formatted(row(key, "\"" + big + "\"", "5", "null"))
                                                .replace("\"id\": " + key, "\"id\": null");
                                yield parse
                                        ? new Written(
                                                ("#" + text).getBytes(StandardCharsets.UTF_8),
                                                "PARSE_ERROR")
                                        : new Written(
                                                text.getBytes(StandardCharsets.UTF_8), "NULL_KEY");
                            }
                            yield new Written(
                                    ok.formatted(row(key, "\"a\"", "null", "null"))
                                            .getBytes(StandardCharsets.UTF_8),
                                    "NULL_SEQUENCE");
                        }
                    };
            records.add(w);
        }
    }

    private static int indexOf(byte[] text, String what) {
        String s = new String(text, StandardCharsets.ISO_8859_1);
        return s.indexOf(what);
    }

    /** Writes the records round robin over 4 partitions; each by "partition/offset". */
    private static Map<String, Written> produce(EmbeddedKafka kafka, List<Written> records)
            throws Exception {
        List<RecordMetadata> landed =
                Topics.send(kafka, "src", records.stream().map(Written::bytes).toList(), 4);
        Map<String, Written> byOffset = new HashMap<>();
        for (int i = 0; i < landed.size(); i++) {
            byOffset.put(landed.get(i).partition() + "/" + landed.get(i).offset(), records.get(i));
        }
        return byOffset;
    }

    /**
     * Reads the dead-letter topic until it holds one letter per broken record, each with the
     * reason, the coordinates and (for the format's refusals) the bytes of the record written
     * there; the letters by reason.
     */
    private static Map<String, Integer> checkLetters(
            EmbeddedKafka kafka, Map<String, Written> byOffset, int broken) throws Exception {
        Map<String, JsonNode> letters = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(
                        Map.of(
                                "bootstrap.servers",
                                kafka.bootstrapServers(),
                                "group.id",
                                "dlq-" + UUID.randomUUID(),
                                "auto.offset.reset",
                                "earliest"),
                        new StringDeserializer(),
                        new StringDeserializer())) {
            consumer.subscribe(List.of("dlq"));
            while (letters.size() < broken && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode letter = JSON.readTree(r.value());
                    String at = letter.path("partition").asInt() + "/" + letter.path("offset");
                    assertThat(letters.put(at, letter)).as("a second letter for %s", at).isNull();
                }
            }
        }
        Map<String, Integer> reasons = new TreeMap<>();
        for (Map.Entry<String, JsonNode> e : letters.entrySet()) {
            JsonNode letter = e.getValue();
            Written w = byOffset.get(e.getKey());
            assertThat(w).as("the record at %s", e.getKey()).isNotNull();
            assertThat(letter.path("reason").asText())
                    .as("letter of %s: %s", e.getKey(), letter.path("message").asText())
                    .isEqualTo(w.reason());
            assertThat(letter.path("topic").asText()).isEqualTo("src");
            assertThat(Base64.getDecoder().decode(letter.path("raw_record").asText()))
                    .as("the bytes of %s", e.getKey())
                    .isEqualTo(w.bytes());
            if (!w.reason().equals("PARSE_ERROR")) { // the record as read: ROW fields as objects
                JsonNode payload = JSON.readTree(letter.path("payload").asText());
                assertThat(payload.path("addr").isObject()).as(payload.toString()).isTrue();
            }
            reasons.merge(w.reason(), 1, Integer::sum);
        }
        long expected = byOffset.values().stream().filter(w -> w.reason() != null).count();
        assertThat(letters).as("one letter per broken record").hasSize((int) expected);
        return reasons;
    }

    /**
     * Flink's restart count of the job ({@code numRestarts}), from the JobManager's Prometheus
     * endpoint.
     */
    private static long restarts(LocalCluster cluster, String job) throws Exception {
        List<PrometheusText.Sample> samples =
                PrometheusText.scrape(cluster.prometheusPort("jobmanager")).samples().stream()
                        .filter(s -> s.name().equals("flink_jobmanager_job_numRestarts"))
                        .filter(s -> job.equals(s.labels().get("job_id")))
                        .toList();
        assertThat(samples).as("numRestarts of job %s", job).hasSize(1);
        return (long) samples.get(0).value();
    }

    private static String flow(String bootstrap) {
        return """
        CREATE TABLE src (id INT, v STRING, addr ROW<city STRING, zip INT>, seq INT,
                          cols ARRAY<STRING>)
        WITH ('connector' = 'kafka', 'topic' = 'src', 'properties.bootstrap.servers' = '%1$s',
              'properties.group.id' = 'bad', 'scan.startup.mode' = 'earliest-offset',
              'format' = 'debezium-json');
        CREATE TABLE dlq (flow STRING, source STRING, reason STRING, message STRING,
                          payload STRING, topic STRING, `partition` INT, `offset` BIGINT,
                          raw_record BYTES)
        WITH ('connector' = 'kafka', 'topic' = 'dlq', 'properties.bootstrap.servers' = '%1$s',
              'format' = 'json', 'properties.max.request.size' = '%2$d');
        SET 'autocdc.f.dead-letter-table' = 'dlq';
        CREATE OR REFRESH STREAMING TABLE target
        WITH ('connector' = 'upsert-kafka', 'topic' = 'target', 'properties.bootstrap.servers' = '%1$s',
              'key.format' = 'json', 'value.format' = 'json',
              'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'bad',
              'properties.transaction.timeout.ms' = '600000');
        CREATE FLOW f AS AUTO CDC INTO target FROM STREAM(src)
        KEYS (id) SEQUENCE BY seq COLUMNS * EXCEPT (addr, seq, cols)
        COLUMNS TO UPDATE cols STORED AS SCD TYPE 2;
        """
                .formatted(bootstrap, LETTER_BYTES);
    }
}
