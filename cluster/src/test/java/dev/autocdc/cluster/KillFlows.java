package dev.autocdc.cluster;

import java.util.ArrayList;
import java.util.List;

/** The Kafka flows of {@link TaskManagerKillTest}, and the bad records among its events. */
final class KillFlows {
    private KillFlows() {}

    /** The text each bad record carries, unique to it: {@code bad-record-<n>-end}. */
    static String marker(int n) {
        return "bad-record-" + n + "-end";
    }

    /**
     * {@code lines} with a bad record after every {@code every}-th: by turns a line that is not
     * JSON (a PARSE_ERROR letter of the decoding step) and an event with a null key (NULL_KEY, of
     * the engine's input check), each carrying {@link #marker}; the markers are 0 to {@code
     * lines.size() / every - 1}.
     */
    static List<String> withBadRecords(List<String> lines, int every) {
        List<String> mixed = new ArrayList<>();
        int n = 0;
        for (int i = 0; i < lines.size(); i++) {
            mixed.add(lines.get(i));
            if ((i + 1) % every == 0) {
                mixed.add(
                        n % 2 == 0
                                ? "{\"id\": 1, \"v\": \"" + marker(n) + "\""
                                : "{\"id\": null, \"v\": \""
                                        + marker(n)
                                        + "\", \"op\": \"UPSERT\", \"seq\": 1, \"sys\": 1}");
                n++;
            }
        }
        return mixed;
    }

    /**
     * Five flows over one source, which they share: SCD2 and bitemporal, each into upsert-kafka and
     * into a {@code kafka} changelog; and SCD1 into upsert-kafka, its dead letters into a {@code
     * kafka} topic {@code scd1_letters}; all with exactly-once delivery. A changelog topic keeps
     * each subtask's rows in one partition ({@code 'sink.partitioner' = 'fixed'}), so a key's rows
     * stay in order.
     */
    static String kafkaFlows(String bootstrap) {
        String exactlyOnce =
                "'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' ="
                        + " 'autocdc-kill-%s', 'properties.transaction.timeout.ms' = '600000'";
        StringBuilder sql =
                new StringBuilder(
                        """
                        CREATE TABLE src (id INT, v STRING, op STRING, seq INT, sys INT)
                        WITH ('connector' = 'kafka', 'topic' = 'events', 'properties.bootstrap.servers' = '%s',
                              'properties.group.id' = 'kill', 'scan.startup.mode' = 'earliest-offset',
                              'format' = 'json');
                        CREATE OR REFRESH STREAMING TABLE scd1_upsert
                        WITH ('connector' = 'upsert-kafka', 'topic' = 'scd1_upsert', 'properties.bootstrap.servers' = '%s',
                              'key.format' = 'json', 'value.format' = 'json', %s);
                        CREATE TABLE scd1_letters (flow STRING, source STRING, reason STRING, message STRING,
                          payload STRING, topic STRING, `partition` INT, `offset` BIGINT, raw_record BYTES)
                        WITH ('connector' = 'kafka', 'topic' = 'scd1_letters', 'properties.bootstrap.servers' = '%s',
                              'format' = 'json', %s);
                        SET 'autocdc.scd1_flow.dead-letter-table' = 'scd1_letters';
                        SET 'autocdc.scd1_flow.state-cache-keys' = '500';
                        CREATE FLOW scd1_flow AS AUTO CDC INTO scd1_upsert FROM STREAM(src)
                        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq
                        COLUMNS * EXCEPT (op, seq, sys) STORED AS SCD TYPE 1;
                        """
                                .formatted(
                                        bootstrap,
                                        bootstrap,
                                        exactlyOnce.formatted("scd1"),
                                        bootstrap,
                                        exactlyOnce.formatted("letters")));
        for (String type : List.of("scd2", "bt")) {
            sql.append(
                    """
                    CREATE OR REFRESH STREAMING TABLE %1$s_upsert
                    WITH ('connector' = 'upsert-kafka', 'topic' = '%1$s_upsert', 'properties.bootstrap.servers' = '%2$s',
                          'key.format' = 'json', 'value.format' = 'json', %3$s);
                    CREATE OR REFRESH STREAMING TABLE %1$s_eo
                    WITH ('connector' = 'kafka', 'topic' = '%1$s_eo', 'properties.bootstrap.servers' = '%2$s',
                          'format' = 'debezium-json', 'sink.partitioner' = 'fixed', %4$s);
                    """
                            .formatted(
                                    type,
                                    bootstrap,
                                    exactlyOnce.formatted(type + "-u"),
                                    exactlyOnce.formatted(type + "-c")));
            for (String sink : List.of("upsert", "eo")) {
                sql.append(
                        """
                        %5$s
                        CREATE FLOW %1$s_%2$s_flow AS AUTO CDC INTO %1$s_%2$s FROM STREAM(src)
                        KEYS (id) APPLY AS DELETE WHEN op = 'DELETE' SEQUENCE BY seq %3$s
                        COLUMNS * EXCEPT (op, seq, sys) STORED AS %4$s;
                        """
                                .formatted(
                                        type,
                                        sink,
                                        type.equals("bt") ? "SYSTEM SEQUENCE BY sys" : "",
                                        type.equals("bt") ? "BITEMPORAL" : "SCD TYPE 2",
                                        sink.equals("eo")
                                                ? "SET 'autocdc.%s_eo_flow.state-cache-keys' ="
                                                                .formatted(type)
                                                        + " '100';"
                                                : "-- the default cache"));
            }
        }
        return sql.toString();
    }
}
