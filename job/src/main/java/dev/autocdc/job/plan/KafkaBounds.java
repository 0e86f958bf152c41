package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowSyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * The end of a triggered run ({@code run --available-now}): every table the flows read is a Kafka
 * topic by name, read by a consumer group that commits its offsets at checkpoints; the end offsets
 * of its partitions are noted when the run starts, and the run has caught up once the group's
 * committed offsets reach them. A committed offset means the checkpoint that holds every record
 * before it is complete, so everything up to the noted offsets is applied and in the state.
 *
 * <p>The sources stay unbounded: a source that finished would be recorded as finished in the last
 * checkpoint (FLIP-147), and a run restored from it would read nothing new.
 */
public final class KafkaBounds {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** One table: its group, the client settings, and the offsets to reach per partition. */
    private record Bound(
            String table, String group, Map<String, Object> client, List<String> topics) {}

    private final List<Bound> bounds;
    private final Map<Bound, Map<TopicPartition, Long>> ends = new LinkedHashMap<>();

    private KafkaBounds(List<Bound> bounds) {
        this.bounds = bounds;
    }

    /**
     * The Kafka tables the flows read, checked: each must name its topics, have a consumer group
     * that commits at checkpoints, and no bounded mode; on a first run (not {@code restored} from a
     * savepoint), start at the earliest offsets or the group's.
     *
     * @throws FlowSyntaxException naming a table that cannot be bounded, and why
     */
    public static KafkaBounds of(
            StreamTableEnvironment tEnv, List<PlannedFlow> flows, boolean restored) {
        Map<String, Bound> tables = new LinkedHashMap<>();
        for (PlannedFlow f : flows) {
            for (ReadTables.ReadTable t : ReadTables.of(tEnv, f.flow(), Map.of())) {
                tables.computeIfAbsent(t.name(), n -> bound(t, restored));
            }
        }
        return new KafkaBounds(List.copyOf(tables.values()));
    }

    private static Bound bound(ReadTables.ReadTable t, boolean restored) {
        Map<String, String> o = t.options();
        String connector = o.get("connector");
        if (!"kafka".equals(connector) && !"upsert-kafka".equals(connector)) {
            throw t.error(
                    "run --available-now reads Kafka topics up to their ends at its start; table "
                            + t.name()
                            + " is a '"
                            + connector
                            + "' table, which it cannot bound: run this flow without"
                            + " --available-now");
        }
        if (o.containsKey("topic-pattern")) {
            throw t.error(
                    "run --available-now needs the topics by name ('topic'); table "
                            + t.name()
                            + " has 'topic-pattern', whose topics may change between runs");
        }
        if (o.containsKey("scan.bounded.mode")) {
            throw t.error(
                    "table "
                            + t.name()
                            + " has 'scan.bounded.mode': remove it; --available-now ends the run"
                            + " itself and keeps the source unbounded, so that the next run goes on"
                            + " where this one stopped (a source that ended reads nothing after a"
                            + " restore)");
        }
        String start = o.getOrDefault("scan.startup.mode", "group-offsets");
        if (!restored && !start.equals("earliest-offset") && !start.equals("group-offsets")) {
            throw t.error(
                    "table "
                            + t.name()
                            + " starts at '"
                            + start
                            + "': a first triggered run (no savepoint yet) reads from the earliest"
                            + " offsets or the group's, since the source commits nothing for a"
                            + " partition it reads nothing from, and the run would wait for ever;"
                            + " set 'scan.startup.mode' to 'earliest-offset' or 'group-offsets'");
        }
        String group = o.get("properties.group.id");
        if (group == null || "false".equals(o.get("properties.commit.offsets.on.checkpoint"))) {
            throw t.error(
                    "run --available-now knows it has caught up from the offsets the source commits"
                            + " at checkpoints; table "
                            + t.name()
                            + " needs 'properties.group.id' (and must not turn off"
                            + " 'properties.commit.offsets.on.checkpoint')");
        }
        Map<String, Object> client = new HashMap<>();
        o.forEach(
                (k, v) -> {
                    if (k.startsWith("properties.")) {
                        client.put(k.substring("properties.".length()), v);
                    }
                });
        return new Bound(t.name(), group, client, List.of(o.get("topic").split(";")));
    }

    /**
     * Notes where every partition of every topic ends (call when the run starts): the offset after
     * its last record ({@link LastRecords}).
     */
    public void noteEnds() throws Exception {
        for (Bound b : bounds) {
            try (Admin admin = Admin.create(b.client())) {
                List<TopicPartition> partitions = new ArrayList<>();
                admin.describeTopics(b.topics())
                        .allTopicNames()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                        .forEach(
                                (topic, d) ->
                                        d.partitions()
                                                .forEach(
                                                        p ->
                                                                partitions.add(
                                                                        new TopicPartition(
                                                                                topic,
                                                                                p.partition()))));
                Map<TopicPartition, Long> latest = offsets(admin, partitions, OffsetSpec.latest());
                Map<TopicPartition, Long> earliest =
                        offsets(admin, partitions, OffsetSpec.earliest());
                // the offset after each partition's last record (before a transaction's marker)
                Map<TopicPartition, Long> toReach =
                        new TreeMap<>(
                                Comparator.comparing(TopicPartition::topic)
                                        .thenComparingInt(TopicPartition::partition));
                toReach.putAll(LastRecords.after(b.client(), earliest, latest));
                ends.put(b, toReach);
            }
        }
    }

    private static Map<TopicPartition, Long> offsets(
            Admin admin, List<TopicPartition> partitions, OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        partitions.forEach(p -> ask.put(p, spec));
        Map<TopicPartition, Long> out = new HashMap<>();
        // the last stable offset: records of a transaction still open are not the run's to wait for
        admin.listOffsets(ask, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                .forEach((p, info) -> out.put(p, info.offset()));
        return out;
    }

    /**
     * The partitions whose group has not yet committed the offset noted at the start, as {@code
     * topic-partition: committed/end}; empty once the run has caught up.
     */
    public List<String> behind() throws Exception {
        List<String> behind = new ArrayList<>();
        for (Map.Entry<Bound, Map<TopicPartition, Long>> e : ends.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            try (Admin admin = Admin.create(e.getKey().client())) {
                Map<TopicPartition, OffsetAndMetadata> committed =
                        admin.listConsumerGroupOffsets(e.getKey().group())
                                .partitionsToOffsetAndMetadata()
                                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                e.getValue()
                        .forEach(
                                (p, end) -> {
                                    OffsetAndMetadata c = committed.get(p);
                                    if (c == null || c.offset() < end) {
                                        behind.add(
                                                p
                                                        + ": "
                                                        + (c == null ? "none" : c.offset())
                                                        + "/"
                                                        + end);
                                    }
                                });
            }
        }
        return behind;
    }

    /** The offsets to reach, for the run's report: partitions and records per table. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        ends.forEach(
                (b, toReach) ->
                        out.add(
                                b.table()
                                        + " (group "
                                        + b.group()
                                        + "): "
                                        + toReach.size()
                                        + " partitions with records, up to offsets "
                                        + toReach.values()));
        return out;
    }
}
