package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.reference.ReferenceModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Retention in the operator (semantics §7), property style: random events over small domains,
 * processing time advancing at random between events, short history and tombstone retentions.
 * Whatever the retentions refuse goes to the late events; the changelog stays well formed and its
 * table equals the reference model of the events that were accepted.
 */
class RetentionPropertyTest {

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theSinkEqualsTheReferenceOfTheAcceptedEvents(Backend backend) throws Exception {
        Random random = new Random(backend.ordinal() + 99);
        int refused = 0;
        int rounds = backend == Backend.ROCKSDB ? 40 : 160;
        for (TargetType type : List.of(TargetType.SCD2, TargetType.BITEMPORAL)) {
            for (int round = 0; round < rounds; round++) {
                boolean ignoreNull = round % 2 == 1;
                boolean shortTombstones = round % 3 == 0;
                List<ReferenceModel.Event> events = randomEvents(random, type);
                List<ReferenceModel.Event> accepted = new ArrayList<>();
                int blockSize = 1 + random.nextInt(3); // small blocks: pruning cuts through them
                EngineSpec spec = spec(type, ignoreNull, shortTombstones, blockSize);
                ChangelogTable table =
                        new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
                try (OperatorRun run = OperatorRun.start(spec, backend)) {
                    long now = 0;
                    for (ReferenceModel.Event e : events) {
                        now += random.nextInt(4);
                        run.setProcessingTime(now);
                        int lateBefore = run.lateEvents().size();
                        List<Object> row =
                                new ArrayList<>(
                                        Arrays.asList(
                                                e.key(),
                                                e.values().get(0),
                                                e.values().get(1),
                                                e.seq()));
                        if (type == TargetType.BITEMPORAL) {
                            row.add(e.sys());
                        }
                        row.add(e.kind() == ReferenceModel.Kind.DELETE);
                        run.process(run.input(row.toArray()));
                        if (run.lateEvents().size() == lateBefore) {
                            accepted.add(e);
                        } else {
                            refused++;
                        }
                        table.apply(run.newOutput());
                    }
                }
                ReferenceModel.Options options =
                        new ReferenceModel.Options(
                                List.of("v1", "v2"),
                                ignoreNull ? Set.of("v1", "v2") : Set.of(),
                                false,
                                null,
                                null,
                                null);
                Set<List<Object>> expected =
                        (type == TargetType.SCD2
                                        ? ReferenceModel.scd2(accepted, options)
                                        : ReferenceModel.bitemporal(accepted, options))
                                .stream().map(ArrayList::new).collect(Collectors.toSet());
                assertThat(table.rows())
                        .as(type + " " + events + " accepted " + accepted)
                        .isEqualTo(expected);
            }
        }
        System.out.println(
                "retention property test on " + backend + ": " + refused + " events refused");
        assertThat(refused).isGreaterThan(rounds);
    }

    private static EngineSpec spec(
            TargetType type, boolean ignoreNull, boolean shortTombstones, int blockSize) {
        List<LogicalType> types =
                new ArrayList<>(
                        List.of(
                                new IntType(),
                                VarCharType.STRING_TYPE,
                                VarCharType.STRING_TYPE,
                                new IntType(false)));
        List<String> names = new ArrayList<>(List.of("id", "v1", "v2", "__seq"));
        if (type == TargetType.BITEMPORAL) {
            types.add(new IntType(false));
            names.add("__sys");
        }
        types.add(new BooleanType());
        names.add("__delete");
        EngineSpec.Builder b =
                EngineSpec.builder(
                                "retention",
                                type,
                                RowType.of(
                                        types.toArray(new LogicalType[0]),
                                        names.toArray(new String[0])))
                        .keys("id")
                        .historyRetention(Duration.ofMillis(4))
                        .tombstoneRetention(
                                shortTombstones ? Duration.ofMillis(6) : Duration.ofDays(1))
                        .blockSize(blockSize);
        if (ignoreNull) {
            b.ignoreNullUpdates();
        }
        return b.build();
    }

    private static List<ReferenceModel.Event> randomEvents(Random random, TargetType type) {
        String[] domain = {"a", "b", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        int n = 5 + random.nextInt(20);
        for (int i = 0; i < n; i++) {
            // mostly increasing sequences with some late ones, as real feeds are
            int seq = Math.max(1, i + 1 - (random.nextInt(4) == 0 ? random.nextInt(6) : 0));
            Integer sys =
                    type == TargetType.BITEMPORAL
                            ? Math.max(1, i + 1 - (random.nextInt(5) == 0 ? random.nextInt(5) : 0))
                            : null;
            events.add(
                    new ReferenceModel.Event(
                            1 + random.nextInt(2),
                            seq,
                            sys,
                            random.nextInt(7) == 0
                                    ? ReferenceModel.Kind.DELETE
                                    : ReferenceModel.Kind.UPSERT,
                            Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]),
                            null));
        }
        return events;
    }
}
