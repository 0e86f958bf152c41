package dev.autocdc.job.plan;

import dev.autocdc.job.source.SourceDecoding;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.LegacySinkTransformation;
import org.apache.flink.streaming.api.transformations.LegacySourceTransformation;
import org.apache.flink.streaming.api.transformations.PartitionTransformation;
import org.apache.flink.streaming.api.transformations.SideOutputTransformation;
import org.apache.flink.streaming.api.transformations.SinkTransformation;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.apache.flink.streaming.api.transformations.UnionTransformation;

/**
 * Uids for the operators that Flink's planner creates (sources, sinks, and what lies between them
 * and ours), made from the names of the flow and its tables, so that a savepoint's state finds its
 * operator again when the flow file changes elsewhere: another flow added before or after, a flow
 * removed. Without them Flink hashes each operator's place in the whole job, and a flow added to
 * the file moves every other flow's Kafka offsets and sink state to operators that no longer exist
 * (the planner's own {@code table.exec.uid.generation} numbers plan nodes, which moves them too).
 *
 * <p>The scheme, part of the savepoint format (docs/reliability.md):
 *
 * <ul>
 *   <li>a source read for flow {@code F}: {@code auto-cdc-source-F-<table>}, {@code <table>} the
 *       source the flow names (also when it is read as bytes for decoding, so that {@code
 *       bad-records} may change); a source read as bytes for several flows ({@link SourceSharing}):
 *       {@code auto-cdc-shared-source-<table>};
 *   <li>what the planner puts between it and the engine: {@code <source uid>-<name>} before the
 *       decoding step, {@code auto-cdc-input-F-<name>} after it;
 *   <li>a sink: {@code <uid>-sink-<table>}, {@code <uid>} the nearest operator upstream that has
 *       one (the engine {@code auto-cdc-F}, a letter counter {@code auto-cdc-dead-letter-table-F}),
 *       or {@code auto-cdc-insert} for the script's own INSERT statements; what lies between:
 *       {@code <uid>-sink-<table>-<name>}.
 * </ul>
 *
 * {@code <name>} is the operator's name without the planner's node numbers ({@code Calc[5]} gives
 * {@code Calc}); a name met twice on one walk gets {@code -2}, {@code -3}. Operators that already
 * have a uid (ours, or the planner's with {@code table.exec.uid.generation = 'ALWAYS'}) keep it.
 * Virtual transformations (partitioning, unions, side outputs) have no operator and get none.
 */
public final class StableUids {
    static final String SOURCE = "auto-cdc-source-";
    static final String SHARED_SOURCE = "auto-cdc-shared-source-";
    static final String INPUT = "auto-cdc-input-";
    static final String INSERT = "auto-cdc-insert";

    private StableUids() {}

    /** The uid of the source flow {@code flow} reads {@code table} with on its own. */
    static String sourceUid(String flow, String table) {
        return SOURCE + flow + "-" + table;
    }

    /**
     * The uid of the source the flows that read {@code table} as bytes share ({@link
     * SourceSharing}).
     */
    static String sharedSourceUid(String table) {
        return SHARED_SOURCE + table;
    }

    /**
     * Names what the planner made for the stream flow {@code flow} reads: the walk goes up from the
     * inputs of {@code stream} (the flow's input step) and stops at operators that have a uid; past
     * the flow's decoding step ({@link SourceDecoding#uid}) it goes on, where the planner reads the
     * source as bytes, unless an earlier flow sharing that read named it.
     *
     * @param read the uid of the source read as bytes ({@link #sourceUid}, {@link
     *     #sharedSourceUid}); null when the flow reads its source as declared
     */
    public static void ofInput(DataStream<?> stream, String flow, String read) {
        Map<String, Integer> seen = new HashMap<>();
        Transformation<?>[] anchor = new Transformation<?>[1];
        for (Transformation<?> in : stream.getTransformation().getInputs()) {
            for (Transformation<?> t : unnamedAbove(in, anchor)) {
                if (isSource(t)) {
                    t.setUid(once(seen, sourceUid(flow, tableName(t))));
                } else if (!isVirtual(t)) {
                    t.setUid(once(seen, INPUT + flow + "-" + name(t)));
                }
            }
        }
        if (read == null
                || anchor[0] == null
                || !anchor[0].getUid().equals(SourceDecoding.uid(flow))) {
            return;
        }
        for (Transformation<?> in : anchor[0].getInputs()) {
            for (Transformation<?> t : unnamedAbove(in, null)) {
                if (isSource(t)) {
                    t.setUid(once(seen, read));
                } else if (!isVirtual(t)) {
                    t.setUid(once(seen, read + "-" + name(t)));
                }
            }
        }
    }

    /**
     * Names every sink of {@code env} that has no uid, and the operators between it and the nearest
     * one upstream that has one. Call once every sink is added.
     */
    public static void ofSinks(StreamExecutionEnvironment env) {
        Set<String> used = new HashSet<>();
        for (Transformation<?> t : everything(env)) {
            if (t.getUid() != null) {
                used.add(t.getUid());
            }
        }
        for (Transformation<?> sink : everything(env)) {
            if (!isSink(sink) || sink.getUid() != null) {
                continue;
            }
            Transformation<?>[] anchor = new Transformation<?>[1];
            List<Transformation<?>> between = unnamedAbove(sink, anchor);
            String owner = anchor[0] == null ? INSERT : anchor[0].getUid();
            String sinkUid = owner + "-sink-" + tableName(sink);
            String unique = sinkUid;
            for (int n = 2; used.contains(unique); n++) {
                unique = sinkUid + "-" + n;
            }
            used.add(unique);
            sink.setUid(unique);
            Map<String, Integer> seen = new HashMap<>();
            for (Transformation<?> t : between.subList(1, between.size())) {
                if (isSource(t)) {
                    t.setUid(once(seen, unique + "-source-" + tableName(t)));
                } else if (!isVirtual(t)) {
                    t.setUid(once(seen, unique + "-" + name(t)));
                }
                used.add(t.getUid());
            }
        }
    }

    /**
     * {@code start} and the transformations above it with no uid, in breadth-first order, inputs in
     * order; the first transformation with a uid met goes to {@code anchor} (when not null).
     */
    private static List<Transformation<?>> unnamedAbove(
            Transformation<?> start, Transformation<?>[] anchor) {
        List<Transformation<?>> found = new ArrayList<>();
        Set<Transformation<?>> visited = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Transformation<?>> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            Transformation<?> t = queue.poll();
            if (!visited.add(t)) {
                continue;
            }
            if (t.getUid() != null) {
                if (anchor != null && anchor[0] == null) {
                    anchor[0] = t;
                }
                continue;
            }
            found.add(t);
            queue.addAll(t.getInputs());
        }
        return found;
    }

    /** Every transformation of the job, upstream ones included. */
    private static List<Transformation<?>> everything(StreamExecutionEnvironment env) {
        List<Transformation<?>> all = new ArrayList<>();
        Set<Transformation<?>> visited = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Transformation<?>> queue = new ArrayDeque<>(env.getTransformations());
        while (!queue.isEmpty()) {
            Transformation<?> t = queue.poll();
            if (visited.add(t)) {
                all.add(t);
                queue.addAll(t.getInputs());
            }
        }
        return all;
    }

    private static String once(Map<String, Integer> seen, String uid) {
        int n = seen.merge(uid, 1, Integer::sum);
        return n == 1 ? uid : uid + "-" + n;
    }

    /** A planner's source or sink is named after its table, with the plan node's number. */
    static String tableName(Transformation<?> t) {
        return t.getName().replaceAll("\\[\\d+\\]$", "");
    }

    /** An operator's name without the planner's numbers ({@code [5]}, {@code $2}) and symbols. */
    static String name(Transformation<?> t) {
        String name = t.getName().replaceAll("\\[\\d+\\]|\\$\\d+|[^A-Za-z0-9_.]", "");
        return name.isEmpty() ? "operator" : name;
    }

    private static boolean isSource(Transformation<?> t) {
        return t instanceof SourceTransformation || t instanceof LegacySourceTransformation;
    }

    private static boolean isSink(Transformation<?> t) {
        return t instanceof SinkTransformation || t instanceof LegacySinkTransformation;
    }

    private static boolean isVirtual(Transformation<?> t) {
        return t instanceof PartitionTransformation
                || t instanceof UnionTransformation
                || t instanceof SideOutputTransformation;
    }
}
