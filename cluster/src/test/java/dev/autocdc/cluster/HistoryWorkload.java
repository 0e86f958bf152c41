package dev.autocdc.cluster;

import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.ReferenceModel.Event;
import dev.autocdc.operators.reference.ReferenceModel.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;

/**
 * Change events for SCD type 2 and bitemporal flows over one source: per key, business sequences
 * and system sequences drawn without repetition and shuffled, so that events arrive late in either
 * timeline (corrections: an older business sequence recorded later), with 10% deletes. The expected
 * targets come from the reference model.
 */
final class HistoryWorkload {
    /** The target columns the flows keep: id, v, then the period columns. */
    static final List<String> SCD1_COLUMNS = List.of("id", "v");

    static final List<String> SCD2_COLUMNS = List.of("id", "v", "__START_AT", "__END_AT");

    /** The SCD type 2 columns of a flow whose source declares w. */
    static final List<String> SCD2_WIDE_COLUMNS = List.of("id", "v", "w", "__START_AT", "__END_AT");

    static final List<String> BITEMPORAL_WIDE_COLUMNS =
            List.of(
                    "id",
                    "v",
                    "w",
                    "__START_AT",
                    "__END_AT",
                    "__SYSTEM_START_AT",
                    "__SYSTEM_END_AT");

    static final List<String> BITEMPORAL_COLUMNS =
            List.of("id", "v", "__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT");

    /** The records, in the order they are written. */
    final List<String> lines = new ArrayList<>();

    /** The events of {@link #lines}, in the same order. */
    private final List<Event> scd2 = new ArrayList<>();

    private final List<Event> bitemporal = new ArrayList<>();

    HistoryWorkload(long seed, int keys, int eventsPerKey) {
        Random random = new Random(seed);
        List<String> lines = new ArrayList<>();
        List<Event> scd2 = new ArrayList<>();
        List<Event> bitemporal = new ArrayList<>();
        for (int key = 0; key < keys; key++) {
            List<Integer> seqs = draw(random, eventsPerKey);
            List<Integer> syss = draw(random, eventsPerKey);
            for (int i = 0; i < eventsPerKey; i++) {
                boolean delete = random.nextInt(100) < 10;
                String v = "v" + random.nextInt(5);
                Kind kind = delete ? Kind.DELETE : Kind.UPSERT;
                // w, for flows whose source declares it: from the event, not from random, so
                // that the events of a seed stay as they were before w existed
                String w = (key + seqs.get(i)) % 4 == 0 ? null : "w" + (key * 7 + seqs.get(i)) % 3;
                scd2.add(new Event(key, seqs.get(i), null, kind, Arrays.asList(v, w), null));
                bitemporal.add(
                        new Event(key, seqs.get(i), syss.get(i), kind, Arrays.asList(v, w), null));
                lines.add(
                        "{\"id\": %d, \"v\": \"%s\", \"op\": \"%s\", \"seq\": %d, \"sys\": %d, \"w\": %s}"
                                .formatted(
                                        key,
                                        v,
                                        delete ? "DELETE" : "UPSERT",
                                        seqs.get(i),
                                        syss.get(i),
                                        w == null ? "null" : "\"" + w + "\""));
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            order.add(i);
        }
        Collections.shuffle(order, random);
        for (int i : order) {
            this.lines.add(lines.get(i));
            this.scd2.add(scd2.get(i));
            this.bitemporal.add(bitemporal.get(i));
        }
    }

    private static List<Integer> draw(Random random, int n) {
        List<Integer> all = new ArrayList<>();
        for (int s = 1; s <= n * 3; s++) {
            all.add(s);
        }
        Collections.shuffle(all, random);
        return new ArrayList<>(all.subList(0, n));
    }

    /** The events' values without w: the flows whose source does not declare it. */
    private static List<Event> narrow(List<Event> events) {
        List<Event> out = new ArrayList<>(events.size());
        for (Event e : events) {
            out.add(
                    new Event(
                            e.key(), e.seq(), e.sys(), e.kind(), List.of(e.values().get(0)), null));
        }
        return out;
    }

    /**
     * The first {@code n} events for flows that gained column w at event {@code added}: the events
     * before it have w null, as the rows stored before it read.
     */
    private static List<Event> widenedAt(List<Event> events, int n, int added) {
        List<Event> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Event e = events.get(i);
            out.add(
                    i >= added
                            ? e
                            : new Event(
                                    e.key(),
                                    e.seq(),
                                    e.sys(),
                                    e.kind(),
                                    Arrays.asList(e.values().get(0), null),
                                    null));
        }
        return out;
    }

    /**
     * The SCD type 2 table (with w) of the first {@code n} records, w declared at {@code added}.
     */
    Set<List<Object>> expectedScd2(int n, int added) {
        return ReferenceModel.scd2(widenedAt(scd2, n, added), wideOptions());
    }

    /**
     * The bitemporal table (with w) of the first {@code n} records, w declared at {@code added}.
     */
    Set<List<Object>> expectedBitemporal(int n, int added) {
        return ReferenceModel.bitemporal(widenedAt(bitemporal, n, added), wideOptions());
    }

    private static ReferenceModel.Options wideOptions() {
        return new ReferenceModel.Options(List.of("v", "w"), Set.of(), false, null, null, null);
    }

    Set<List<Object>> expectedScd1() {
        return expectedScd1(lines.size());
    }

    /** The SCD type 1 table of the first {@code n} records. */
    Set<List<Object>> expectedScd1(int n) {
        return ReferenceModel.scd1(narrow(scd2.subList(0, n)), options());
    }

    Set<List<Object>> expectedScd2() {
        return expectedScd2(lines.size());
    }

    /** The SCD type 2 table of the first {@code n} records. */
    Set<List<Object>> expectedScd2(int n) {
        return ReferenceModel.scd2(narrow(scd2.subList(0, n)), options());
    }

    Set<List<Object>> expectedBitemporal() {
        return expectedBitemporal(lines.size());
    }

    /** The bitemporal table of the first {@code n} records. */
    Set<List<Object>> expectedBitemporal(int n) {
        return ReferenceModel.bitemporal(narrow(bitemporal.subList(0, n)), options());
    }

    private static ReferenceModel.Options options() {
        return new ReferenceModel.Options(List.of("v"), Set.of(), false, null, null, null);
    }

    /** A target row as the reference model writes it: strings, integers and nulls. */
    static List<Object> row(JsonNode n, List<String> columns) {
        List<Object> row = new ArrayList<>();
        for (String c : columns) {
            JsonNode v = n.get(c);
            row.add(
                    v == null || v.isNull()
                            ? null
                            : v.isNumber() ? (Object) v.asInt() : v.asText());
        }
        return row;
    }
}
