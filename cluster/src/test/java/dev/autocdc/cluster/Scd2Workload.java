package dev.autocdc.cluster;

import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Change events for an SCD type 2 flow, shuffled so that many arrive late, with deletes and
 * malformed lines mixed in; the expected target from the reference model (written from the contract
 * alone).
 */
final class Scd2Workload {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The flow of these events, reading {@code source} and writing upsert-kafka {@code target}. */
    static String flow(String bootstrap, String source, String target, boolean bounded) {
        return """
        CREATE TABLE src (id INT, name STRING, city STRING, op STRING, seq INT)
        WITH ('connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
              'properties.group.id' = 'autocdc-cluster-test', 'scan.startup.mode' = 'earliest-offset',
              %s'format' = 'json');
        CREATE OR REFRESH STREAMING TABLE hist
        WITH ('connector' = 'upsert-kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
              'key.format' = 'json', 'value.format' = 'json');
        CREATE FLOW apply_cdc AS AUTO CDC INTO hist FROM STREAM(src)
        KEYS (id)
        APPLY AS DELETE WHEN op = 'DELETE'
        SEQUENCE BY seq
        COLUMNS * EXCEPT (op, seq)
        STORED AS SCD TYPE 2;
        """
                .formatted(
                        source,
                        bootstrap,
                        bounded ? "'scan.bounded.mode' = 'latest-offset', " : "",
                        target,
                        bootstrap);
    }

    final List<String> lines = new ArrayList<>();
    final int malformed;
    private final List<Event> events = new ArrayList<>();

    Scd2Workload(long seed, int keys, int eventsPerKey) {
        Random random = new Random(seed);
        String[] cities = {"Monterrey", "Oaxaca", "Tijuana", "Cancun", "Mexicali", "Puebla"};
        for (int key = 0; key < keys; key++) {
            List<Integer> seqs = new ArrayList<>();
            for (int s = 1; s <= eventsPerKey * 3; s++) {
                seqs.add(s);
            }
            Collections.shuffle(seqs, random);
            for (int i = 0; i < eventsPerKey; i++) {
                int seq = seqs.get(i);
                boolean delete = random.nextInt(100) < 15;
                String name = "n" + key;
                String city = cities[random.nextInt(cities.length)];
                events.add(
                        new Event(
                                key,
                                seq,
                                null,
                                delete ? Kind.DELETE : Kind.UPSERT,
                                List.of(name, city),
                                null));
                lines.add(
                        "{\"id\": %d, \"name\": \"%s\", \"city\": \"%s\", \"op\": \"%s\", \"seq\": %d}"
                                .formatted(key, name, city, delete ? "DELETE" : "UPSERT", seq));
            }
        }
        Collections.shuffle(lines, random);
        int bad = 0;
        for (int i = 0; i < lines.size(); i += 500) {
            lines.add(i, "{\"id\": 1, \"name\": broken");
            bad++;
        }
        malformed = bad;
    }

    /** The SCD type 2 target, rows [id, name, city, __START_AT, __END_AT]. */
    Set<List<Object>> expected() {
        return ReferenceModel.scd2(
                events,
                new ReferenceModel.Options(
                        List.of("name", "city"), Set.of(), false, null, null, null));
    }

    /** An upsert topic's records (key, value or null), materialized into the target's rows. */
    static Set<List<Object>> rows(Map<String, String> table) throws Exception {
        Set<List<Object>> rows = new HashSet<>();
        for (String value : table.values()) {
            JsonNode n = JSON.readTree(value);
            List<Object> row = new ArrayList<>();
            row.add(n.get("id").asInt());
            row.add(n.get("name").asText());
            row.add(n.get("city").asText());
            row.add(n.get("__START_AT").asInt());
            row.add(n.get("__END_AT").isNull() ? null : n.get("__END_AT").asInt());
            rows.add(row);
        }
        return rows;
    }

    /** Applies upsert records to a table by key: a null value removes the key. */
    static void upsert(Map<String, String> table, String key, String value) {
        if (value == null) {
            table.remove(key);
        } else {
            table.put(key, value);
        }
    }

    static Map<String, String> newTable() {
        return new TreeMap<>();
    }
}
