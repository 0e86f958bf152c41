package dev.autocdc.job.cli;

import dev.autocdc.job.plan.PlannedFlow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.CatalogBaseTable;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Before {@code run} starts a job: every Kafka table its flows read or write must have a broker
 * that answers, else the run stops at once naming the table and the setting. Without this check
 * Flink's Kafka source waits about 74 s and fails with a message that names neither.
 */
final class KafkaCheck {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private KafkaCheck() {}

    /**
     * The first Kafka table whose brokers do not answer within {@code timeout}, as a message; null
     * when all answer.
     */
    static String check(StreamTableEnvironment tEnv, List<PlannedFlow> flows, Duration timeout) {
        Map<String, String> tables = new LinkedHashMap<>(); // table -> its role, for the message
        for (PlannedFlow f : flows) {
            tables.putIfAbsent(f.flow().source(), "source");
            if (f.writesTable()) {
                tables.putIfAbsent(f.flow().target(), "target");
            }
            if (f.deadLetterTable() != null) {
                tables.putIfAbsent(f.deadLetterTable(), "dead-letter table");
            }
            if (f.lateEventsTable() != null) {
                tables.putIfAbsent(f.lateEventsTable(), "late-events table");
            }
        }
        for (Map.Entry<String, String> t : tables.entrySet()) {
            Map<String, String> options = options(tEnv, t.getKey());
            String connector = options.get("connector");
            if (!"kafka".equals(connector) && !"upsert-kafka".equals(connector)) {
                continue;
            }
            String servers = options.get("properties.bootstrap.servers");
            if (servers == null) {
                continue; // Flink's own validation names the missing option
            }
            if (!answers(options, timeout)) {
                return t.getValue()
                        + " table "
                        + t.getKey()
                        + ": no Kafka broker answered at "
                        + servers
                        + " ('properties.bootstrap.servers') within "
                        + timeout.toSeconds()
                        + " s; start the broker, or correct the setting";
            }
        }
        return null;
    }

    private static Map<String, String> options(StreamTableEnvironment tEnv, String table) {
        TableEnvironmentInternal internal = (TableEnvironmentInternal) tEnv;
        CatalogManager catalogs = internal.getCatalogManager();
        ObjectIdentifier id =
                catalogs.qualifyIdentifier(internal.getParser().parseIdentifier(table));
        return catalogs.getTable(id)
                .map(
                        t -> {
                            CatalogBaseTable base = t.getTable();
                            return base.getOptions();
                        })
                .orElse(Map.of());
    }

    /** Whether the cluster describes itself in time, with the table's client properties. */
    private static boolean answers(Map<String, String> options, Duration timeout) {
        Properties props = new Properties();
        options.forEach(
                (k, v) -> {
                    if (k.startsWith("properties.")) {
                        props.put(k.substring("properties.".length()), v);
                    }
                });
        int ms = (int) timeout.toMillis();
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
        List<String> keep = new ArrayList<>(AdminClientConfig.configNames());
        props.keySet().removeIf(k -> !keep.contains(k.toString()));
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms))
                    .nodes()
                    .get(ms + 1000L, TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}
