package dev.autocdc.operators.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Bitemporal history retention (semantics §7): random event sets fed in random orders, compacted at
 * random moments with random cutoffs. Events the retention refuses (at or before a floor) are
 * dropped; the materialized changelog must stay well formed and equal the reference model of the
 * accepted events.
 */
class BitemporalRetentionTest {

    @Test
    void compactionKeepsTheTableExactForEveryAcceptedEvent() {
        Random random = new Random(5);
        ColumnType string = ColumnType.of(ColumnType.Kind.STRING);
        ColumnType integer = ColumnType.of(ColumnType.Kind.INT);
        SequenceCodec codec = new SequenceCodec(integer);
        int compactions = 0;
        int dropped = 0;
        int refused = 0;
        int acceptedAfterCompaction = 0;
        for (int set = 0; set < 3000; set++) {
            boolean ignoreNull = set % 3 == 1;
            boolean track = set % 4 == 2;
            FlowBuilder b =
                    Flow.builder("f", TargetType.BITEMPORAL)
                            .column("id", integer)
                            .column("v1", string)
                            .column("v2", string)
                            .keys("id")
                            .sequenceBy(integer)
                            .systemSequenceBy(integer);
            if (ignoreNull) {
                b.ignoreNullUpdates();
            }
            if (track) {
                b.trackHistoryOn(List.of("v1"));
            }
            Flow flow = b.build();
            BitemporalEngine engine = new BitemporalEngine(flow, EngineCounters.NONE);
            BitemporalRetention retention = new BitemporalRetention(flow);
            String[] domain = {"a", "b", null};
            List<ReferenceModel.Event> events = new ArrayList<>();
            int n = 4 + random.nextInt(14);
            for (int i = 0; i < n; i++) {
                events.add(
                        new ReferenceModel.Event(
                                1 + random.nextInt(2),
                                1 + random.nextInt(8),
                                1 + random.nextInt(8),
                                random.nextInt(6) == 0
                                        ? ReferenceModel.Kind.DELETE
                                        : ReferenceModel.Kind.UPSERT,
                                Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]),
                                null));
            }
            Collections.shuffle(events, random);
            Map<Object, InMemoryBitemporalStore> stores = new HashMap<>();
            MaterializedTable table = new MaterializedTable(0, 3, 5);
            List<ReferenceModel.Event> accepted = new ArrayList<>();
            boolean compacted = false;
            for (int i = 0; i < events.size(); i++) {
                ReferenceModel.Event e = events.get(i);
                InMemoryBitemporalStore store =
                        stores.computeIfAbsent(e.key(), k -> new InMemoryBitemporalStore());
                store.stampAt(i);
                ChangeEvent event =
                        new ChangeEvent(
                                e.kind() == ReferenceModel.Kind.UPSERT ? Op.UPSERT : Op.DELETE,
                                new Object[] {e.key(), e.values().get(0), e.values().get(1)},
                                codec.encode(e.seq()),
                                codec.encode(e.sys()),
                                null);
                if (store.head() != null && store.head().isBeforeRetainedHistory(event)) {
                    refused++;
                    continue;
                }
                List<TargetChange> changes = new ArrayList<>();
                try {
                    engine.apply(store, event, changes);
                    table.applyAll(changes);
                } catch (RuntimeException | AssertionError failure) {
                    throw new AssertionError(
                            "set " + set + " events " + events + " at " + i + ": " + failure,
                            failure);
                }
                accepted.add(e);
                if (compacted) {
                    acceptedAfterCompaction++;
                }
                if (random.nextInt(3) == 0) {
                    long cutoff = random.nextInt(i + 1);
                    for (InMemoryBitemporalStore s : stores.values()) {
                        compactions++;
                        if (retention.compact(s, cutoff)) {
                            dropped++;
                            compacted = true;
                        }
                    }
                }
            }
            ReferenceModel.Options options =
                    new ReferenceModel.Options(
                            List.of("v1", "v2"),
                            ignoreNull ? Set.of("v1", "v2") : Set.of(),
                            false,
                            track ? Set.of("v1") : null,
                            null,
                            null);
            assertThat(table.rows())
                    .as(
                            "set "
                                    + set
                                    + " ignoreNull="
                                    + ignoreNull
                                    + " track="
                                    + track
                                    + " arrival "
                                    + events
                                    + " accepted "
                                    + accepted)
                    .isEqualTo(ReferenceModel.bitemporal(accepted, options));
        }
        System.out.printf(
                "bitemporal retention: %d compaction passes, %d dropped history, %d events refused,"
                        + " %d accepted after a compaction%n",
                compactions, dropped, refused, acceptedAfterCompaction);
        assertThat(dropped).isGreaterThan(500);
        assertThat(refused).isGreaterThan(500);
        assertThat(acceptedAfterCompaction).isGreaterThan(2000);
    }
}
