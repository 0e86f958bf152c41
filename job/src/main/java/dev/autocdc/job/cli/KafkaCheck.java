package dev.autocdc.job.cli;

import dev.autocdc.job.plan.PlannedFlow;
import dev.autocdc.job.source.SnapshotWatermark;
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
import org.apache.kafka.clients.admin.TopicDescription;

/**
 * Before {@code run} starts a job: every Kafka table its flows read or write must have a broker
 * that answers, else the run stops at once naming the table and the setting. Without this check
 * Flink's Kafka source waits about 74 s and fails with a message that names neither. And a flow
 * from snapshots must not read an unbounded Kafka source with more subtasks than its topics have
 * partitions: a subtask without a partition never moves its watermark, so no snapshot would ever
 * complete (docs/snapshots.md), and the run would apply nothing, silently.
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

    /**
     * The first flow from snapshots whose unbounded Kafka source reads with more subtasks (its
     * {@code scan.parallelism}, else {@code parallelism}) than its topics have partitions, as a
     * message naming the fix; null when none. A topic that cannot be described in time (not created
     * yet, say) is not checked.
     */
    static String snapshotPartitions(
            StreamTableEnvironment tEnv,
            List<PlannedFlow> flows,
            int parallelism,
            Duration timeout) {
        for (PlannedFlow f : flows) {
            if (!f.flow().fromSnapshot()) {
                continue;
            }
            Map<String, String> options = options(tEnv, f.flow().source());
            String topics = options.get("topic");
            if (!"kafka".equals(options.get("connector"))
                    || topics == null
                    || !SnapshotWatermark.unbounded(options)) {
                continue;
            }
            String scan = options.get("scan.parallelism");
            int readers = scan == null ? parallelism : Integer.parseInt(scan.strip());
            Integer partitions = partitions(options, List.of(topics.split(";")), timeout);
            if (partitions != null && partitions < readers) {
                return "flow "
                        + f.flow().name()
                        + " reads source table "
                        + f.flow().source()
                        + " (topic '"
                        + topics
                        + "', "
                        + partitions
                        + (partitions == 1 ? " partition" : " partitions")
                        + ") with "
                        + readers
                        + " subtasks: a subtask without a partition never moves its watermark, so"
                        + " no snapshot would ever complete; set 'scan.parallelism' = '"
                        + partitions
                        + "' on the table, or run with --parallelism "
                        + partitions
                        + " (docs/snapshots.md)";
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
        int ms = (int) timeout.toMillis();
        try (Admin admin = Admin.create(client(options, timeout))) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms))
                    .nodes()
                    .get(ms + 1000L, TimeUnit.MILLISECONDS);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** The partitions of {@code topics} together; null when they cannot be described in time. */
    private static Integer partitions(
            Map<String, String> options, List<String> topics, Duration timeout) {
        int ms = (int) timeout.toMillis();
        try (Admin admin = Admin.create(client(options, timeout))) {
            Map<String, TopicDescription> described =
                    admin.describeTopics(topics.stream().map(String::strip).toList())
                            .allTopicNames()
                            .get(ms + 1000L, TimeUnit.MILLISECONDS);
            return described.values().stream().mapToInt(d -> d.partitions().size()).sum();
        } catch (Exception e) {
            return null;
        }
    }

    /** An admin client's properties: the table's {@code properties.*}, with the timeout. */
    private static Properties client(Map<String, String> options, Duration timeout) {
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
        return props;
    }
}
