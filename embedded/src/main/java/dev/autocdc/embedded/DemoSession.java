package dev.autocdc.embedded;

import dev.autocdc.embedded.kafka.EmbeddedKafka;
import dev.autocdc.job.cli.AutoCdcCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What every walkthrough of the demo shares: the broker, a topic per step, running a flow from its
 * SQL text through the CLI, producing change events, reading an upsert-kafka target back as a
 * table, and printing a table beside the reference's (remembering the tables that differ).
 */
final class DemoSession {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter SECONDS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    final PrintStream out;
    final EmbeddedKafka kafka;
    private final Path dir;
    private final List<String> mismatches = new ArrayList<>();
    private int run;

    DemoSession(PrintStream out, EmbeddedKafka kafka, Path dir) {
        this.out = out;
        this.kafka = kafka;
        this.dir = dir;
    }

    /** The titles of the tables that differed from the reference so far. */
    List<String> mismatches() {
        return mismatches;
    }

    String kafkaSource() {
        return "'connector' = 'kafka', 'properties.bootstrap.servers' = '"
                + kafka.bootstrapServers()
                + "', 'properties.group.id' = 'autocdc-demo', 'scan.startup.mode' ="
                + " 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'";
    }

    String topic(String name) throws Exception {
        String t = name + "_" + (++run);
        kafka.createTopic(t, 1);
        return t;
    }

    void runFlow(String sql) throws Exception {
        Path file = dir.resolve("flow" + (++run) + ".sql");
        Files.writeString(file, sql);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        out.println(
                "... running the flow ("
                        + file.getFileName()
                        + ") on a local Flink, parallelism 2");
        int code =
                new AutoCdcCli(
                                new PrintStream(new ByteArrayOutputStream()),
                                new PrintStream(err, true, StandardCharsets.UTF_8))
                        .run(new String[] {"run", "--flow", file.toString(), "--parallelism", "2"});
        if (code != 0) {
            throw new IllegalStateException("the flow failed: " + err);
        }
    }

    void produce(String topic, List<String> values) throws Exception {
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", kafka.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get();
            }
        }
        out.println("... produced " + values.size() + " change events to Kafka topic " + topic);
    }

    /**
     * An upsert-kafka topic materialized: the last value per key, as column -> JSON text (null for
     * null).
     */
    List<Map<String, String>> read(String topic) throws Exception {
        Map<String, String> latest = new TreeMap<>();
        for (ConsumerRecord<String, String> r : kafka.readAll(topic)) {
            if (r.value() == null) {
                latest.remove(r.key());
            } else {
                latest.put(r.key(), r.value());
            }
        }
        List<Map<String, String>> rows = new ArrayList<>();
        for (String value : latest.values()) {
            Map<String, String> row = new LinkedHashMap<>();
            JsonNode node = JSON.readTree(value);
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                row.put(f.getKey(), f.getValue().isNull() ? null : f.getValue().asText());
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * A query's answer as rows of column -> text (null for null; timestamps to the second, as the
     * references print them).
     */
    static List<Map<String, String>> rows(TableResult result) throws Exception {
        List<String> columns = result.getResolvedSchema().getColumnNames();
        List<Map<String, String>> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            while (it.hasNext()) {
                Row r = it.next();
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 0; i < columns.size(); i++) {
                    Object v = r.getField(i);
                    row.put(
                            columns.get(i),
                            v == null
                                    ? null
                                    : v instanceof LocalDateTime t
                                            ? t.format(SECONDS)
                                            : v.toString());
                }
                rows.add(row);
            }
        }
        return rows;
    }

    void show(
            String title,
            List<Map<String, String>> table,
            List<String> columns,
            Predicate<Map<String, String>> filter,
            String... expected) {
        List<String[]> cells = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        List<Map<String, String>> sorted = new ArrayList<>(table);
        // by key, then business start, then system start (ISO text sorts like the values)
        sorted.sort(
                Comparator.comparing(
                                (Map<String, String> r) -> String.valueOf(r.get(columns.get(0))))
                        .thenComparing(r -> String.valueOf(r.get("__START_AT")))
                        .thenComparing(r -> String.valueOf(r.get("__SYSTEM_START_AT"))));
        for (Map<String, String> row : sorted) {
            if (!filter.test(row)) {
                continue;
            }
            String[] c = new String[columns.size()];
            for (int i = 0; i < c.length; i++) {
                c[i] = String.valueOf(row.get(columns.get(i)));
            }
            cells.add(c);
            actual.add(String.join("|", c));
        }
        int[] width = new int[columns.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = columns.get(i).length();
            for (String[] c : cells) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder b = new StringBuilder("\n== ").append(title).append('\n');
        line(b, columns.toArray(new String[0]), width);
        for (String[] c : cells) {
            line(b, c, width);
        }
        List<String> want = new ArrayList<>(List.of(expected));
        Collections.sort(actual);
        Collections.sort(want);
        if (actual.equals(want)) {
            b.append("   matches the reference\n");
        } else {
            b.append("   DIFFERS from the reference, which has:\n");
            for (String w : expected) {
                b.append("     ").append(w.replace("|", " | ")).append('\n');
            }
            mismatches.add(title);
        }
        out.print(b);
    }

    private static void line(StringBuilder b, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            b.append(String.format("%-" + width[i] + "s", cells[i]))
                    .append(i + 1 < cells.length ? " | " : "\n");
        }
    }
}
