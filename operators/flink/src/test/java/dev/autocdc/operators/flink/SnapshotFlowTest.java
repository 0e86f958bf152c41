package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.snapshot.SnapshotMarks;
import dev.autocdc.operators.flink.spec.EngineOptions;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.reference.ReferenceModel;
import dev.autocdc.operators.reference.SnapshotReference;
import dev.autocdc.operators.reference.SnapshotReference.SnapshotRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * AUTO CDC FROM SNAPSHOT (semantics §10) against {@link SnapshotReference}, the model written from
 * the contract alone: random snapshot sequences for the three target types, fed to the keyed
 * function in a harness either as a bounded input (every row in a random order, then every snapshot
 * complete) or as a stream (snapshots in order, each completed by the watermark before the next),
 * on both backends.
 */
class SnapshotFlowTest {

    private static final ReferenceModel.Options OPTIONS =
            new ReferenceModel.Options(List.of("v1", "v2"), Set.of(), false, null, null, null);

    static EngineSpec spec(TargetType type) {
        return spec(type, null);
    }

    /**
     * @param tombstones the tombstone retention, or null for the default
     */
    static EngineSpec spec(TargetType type, Duration tombstones) {
        return spec(type, tombstones, null);
    }

    /**
     * The spec with a write-back cache of {@code cacheKeys} keys (null: the default, every key of a
     * test): a cache of one or a few keys evicts at almost every row, so the waiting rows and the
     * progress go through keyed state in every order of reads, writes and evictions.
     */
    static EngineSpec spec(TargetType type, Duration tombstones, Integer cacheKeys) {
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
        return EngineSpec.builder(
                        "snapshots",
                        type,
                        RowType.of(types.toArray(new LogicalType[0]), names.toArray(new String[0])))
                .keys("id")
                .fromSnapshot()
                .tombstoneRetention(
                        tombstones == null ? EngineOptions.DEFAULT_TOMBSTONE_RETENTION : tombstones)
                .stateCacheKeys(cacheKeys)
                .build();
    }

    /** The cache of a round: every key, one key, or three, by turns. */
    private static Integer cacheKeys(int round) {
        return switch (round % 3) {
            case 0 -> null;
            case 1 -> 1;
            default -> 3;
        };
    }

    /** Reads of keyed state the cache did not answer (0 without a cache). */
    private static long cacheMisses(SnapshotRun run) {
        return run.function.stateCache() == null ? 0 : run.function.stateCache().misses();
    }

    private static Set<List<Object>> expected(TargetType type, List<SnapshotRow> rows) {
        SnapshotReference.Result r =
                switch (type) {
                    case SCD1 -> SnapshotReference.scd1(rows, OPTIONS);
                    case SCD2 -> SnapshotReference.scd2(rows, OPTIONS);
                    default -> SnapshotReference.bitemporal(rows, OPTIONS);
                };
        return r.table().stream().map(ArrayList::new).collect(Collectors.toSet());
    }

    private static int expectedDeadLetters(TargetType type, List<SnapshotRow> rows) {
        return SnapshotReference.deadLetters(rows, OPTIONS, type == TargetType.BITEMPORAL).size();
    }

    /**
     * Random snapshots: up to 6 of them over 4 keys, versions 1-8 (bitemporal: restated versions
     * and shared system sequences), each key in a snapshot with probability 0.6 (so keys leave and
     * return), values from a small domain, sometimes a copy of a row or a different second row.
     */
    static List<SnapshotRow> randomSnapshots(Random random, TargetType type) {
        return randomSnapshots(random, type, 6, 4, 8, 5);
    }

    /**
     * Up to {@code snapshots} snapshots over {@code keys} keys, of the given ranges of sequences.
     */
    static List<SnapshotRow> randomSnapshots(
            Random random, TargetType type, int snapshots, int keys, int versions, int systems) {
        String[] domain = {"a", "b", null};
        int count = 1 + random.nextInt(snapshots);
        Set<List<Integer>> ids = new HashSet<>();
        List<SnapshotRow> rows = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            int version = 1 + random.nextInt(versions);
            Integer sys = type == TargetType.BITEMPORAL ? 10 + random.nextInt(systems) : null;
            if (!ids.add(Arrays.asList(version, sys))) {
                continue;
            }
            boolean any = false;
            for (int key = 1; key <= keys; key++) {
                if (random.nextDouble() >= 0.6 && (any || key < keys)) {
                    continue;
                }
                any = true;
                List<Object> values =
                        Arrays.asList(domain[random.nextInt(3)], domain[random.nextInt(3)]);
                rows.add(new SnapshotRow(key, version, sys, values));
                int extra = random.nextInt(12);
                if (extra == 0) {
                    rows.add(new SnapshotRow(key, version, sys, values)); // an equal copy
                } else if (extra == 1) {
                    rows.add(
                            new SnapshotRow(
                                    key,
                                    version,
                                    sys,
                                    Arrays.asList("other", domain[random.nextInt(3)])));
                }
            }
        }
        return rows;
    }

    /** Cases per test: a RocksDB harness takes about 100 ms to open. */
    private static int rounds(Backend backend) {
        return backend == Backend.ROCKSDB ? 40 : 200;
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void boundedInputInAnyRowOrderEqualsTheReference(Backend backend) throws Exception {
        Random random = new Random(1610);
        Map<TargetType, Integer> cases = new EnumMap<>(TargetType.class);
        int withDeadLetters = 0;
        int withVanishedKeys = 0;
        for (int round = 0; round < rounds(backend); round++) {
            for (TargetType type : TargetType.values()) {
                List<SnapshotRow> rows = randomSnapshots(random, type);
                List<SnapshotRow> shuffled = new ArrayList<>(rows);
                Collections.shuffle(shuffled, random);
                try (SnapshotRun run =
                        new SnapshotRun(spec(type, null, cacheKeys(round)), backend)) {
                    run.rows(shuffled);
                    Map<List<Object>, RowData> marks = new LinkedHashMap<>();
                    for (SnapshotRow r : shuffled) {
                        marks.putIfAbsent(Arrays.asList(r.version(), r.sys()), run.mark(r));
                    }
                    for (RowData m : marks.values()) {
                        run.complete(m);
                    }
                    run.watermark(Long.MAX_VALUE);
                    run.drain();
                    assertThat(run.table.rows())
                            .as(type + " " + rows)
                            .isEqualTo(expected(type, rows));
                    int letters = expectedDeadLetters(type, rows);
                    assertThat(run.deadLetters()).as(type + " " + rows).isEqualTo(letters);
                    // rows received, not the upserts and deletes they stand for
                    assertThat(run.function.metrics().input.getCount()).isEqualTo(rows.size());
                    withDeadLetters += letters > 0 ? 1 : 0;
                    withVanishedKeys +=
                            SnapshotReference.events(rows, OPTIONS, type == TargetType.BITEMPORAL)
                                            .stream()
                                            .anyMatch(e -> e.kind() == ReferenceModel.Kind.DELETE)
                                    ? 1
                                    : 0;
                    cases.merge(type, 1, Integer::sum);
                }
            }
        }
        System.out.println(
                "snapshot property test (bounded, "
                        + backend
                        + "): "
                        + cases
                        + ", "
                        + withDeadLetters
                        + " with duplicate keys, "
                        + withVanishedKeys
                        + " with keys missing from a snapshot");
        assertThat(withDeadLetters).isGreaterThan(rounds(backend) / 5);
        assertThat(withVanishedKeys).isGreaterThan(rounds(backend) * 2);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void snapshotsInOrderCompletedOneByOneEqualTheReference(Backend backend) throws Exception {
        Random random = new Random(2611);
        int marksAheadRuns = 0;
        long checkpoints = 0;
        long missesOfSmallCaches = 0;
        for (int round = 0; round < rounds(backend); round++) {
            for (TargetType type : TargetType.values()) {
                List<SnapshotRow> rows = randomSnapshots(random, type);
                // the snapshots in the order they are applied: version; bitemporal: sys, version
                TreeMap<List<Integer>, List<SnapshotRow>> inOrder =
                        new TreeMap<>(
                                (a, b) ->
                                        type == TargetType.BITEMPORAL
                                                ? a.get(1) != b.get(1).intValue()
                                                        ? Integer.compare(a.get(1), b.get(1))
                                                        : Integer.compare(a.get(0), b.get(0))
                                                : Integer.compare(a.get(0), b.get(0)));
                for (SnapshotRow r : rows) {
                    inOrder.computeIfAbsent(
                                    Arrays.asList(r.version(), r.sys() == null ? 0 : r.sys()),
                                    k -> new ArrayList<>())
                            .add(r);
                }
                // the broadcast channel may run ahead of the keyed one: a snapshot's complete mark
                // before its rows; and the watermark may pass several snapshots at once
                boolean marksAhead = random.nextBoolean();
                boolean jumps = random.nextBoolean();
                marksAheadRuns += marksAhead ? 1 : 0;
                try (SnapshotRun run =
                        new SnapshotRun(spec(type, null, cacheKeys(round)), backend)) {
                    Long previousTime = null;
                    List<RowData> waiting = new ArrayList<>();
                    for (List<SnapshotRow> snapshot : inOrder.values()) {
                        RowData mark = run.mark(snapshot.get(0));
                        long time = mark.getLong(SnapshotMarks.TIME);
                        if (marksAhead) { // known before the last snapshot's timers fire
                            run.complete(mark);
                        }
                        if (previousTime != null && time != previousTime) {
                            // the rows of the next snapshot passed every split: complete the last
                            for (RowData m : waiting) {
                                run.complete(m);
                            }
                            waiting.clear();
                            if (!jumps || random.nextBoolean()) {
                                run.watermark(previousTime);
                                run.drain();
                            }
                        }
                        if (!marksAhead) {
                            waiting.add(mark);
                        }
                        List<SnapshotRow> shuffled = new ArrayList<>(snapshot);
                        Collections.shuffle(shuffled, random);
                        run.rows(shuffled);
                        previousTime = time;
                        if (random.nextInt(3) == 0) { // the cache flushed: rows waiting written
                            run.snapshot(++checkpoints);
                        }
                    }
                    for (RowData m : waiting) {
                        run.complete(m);
                    }
                    run.watermark(Long.MAX_VALUE);
                    run.drain();
                    assertThat(run.table.rows())
                            .as(type + " " + rows)
                            .isEqualTo(expected(type, rows));
                    assertThat(run.deadLetters())
                            .as(type + " " + rows)
                            .isEqualTo(expectedDeadLetters(type, rows));
                    assertThat(run.lateEvents()).isZero();
                    // a split that breaks the order: a row of the first snapshot, now complete
                    SnapshotRow first = inOrder.firstEntry().getValue().get(0);
                    run.rows(
                            List.of(
                                    new SnapshotRow(
                                            first.key(),
                                            first.version(),
                                            first.sys(),
                                            Arrays.asList("late", null))));
                    run.drain();
                    assertThat(run.lateEvents()).isOne();
                    assertThat(run.table.rows()).isEqualTo(expected(type, rows));
                    missesOfSmallCaches += cacheKeys(round) == null ? 0 : cacheMisses(run);
                }
            }
        }
        assertThat(marksAheadRuns).isGreaterThan(rounds(backend));
        assertThat(checkpoints).isGreaterThan(rounds(backend));
        assertThat(missesOfSmallCaches).isGreaterThan(rounds(backend) * 10L);
    }

    /** Random bitemporal snapshots, grouped by snapshot in the order they apply. */
    private static List<List<SnapshotRow>> restatingSnapshots(Random random) {
        TreeMap<List<Integer>, List<SnapshotRow>> inOrder =
                new TreeMap<>(
                        Comparator.<List<Integer>>comparingInt(id -> id.get(1))
                                .thenComparingInt(id -> id.get(0)));
        for (SnapshotRow r : randomSnapshots(random, TargetType.BITEMPORAL, 10, 6, 10, 8)) {
            inOrder.computeIfAbsent(Arrays.asList(r.version(), r.sys()), k -> new ArrayList<>())
                    .add(r);
        }
        return new ArrayList<>(inOrder.values());
    }

    /**
     * Feeds snapshots in order, each complete after its rows, the watermark passing a system
     * sequence's snapshots when the next system sequence starts (sometimes several at once).
     *
     * @param previous the time of the snapshot fed before these, or null
     * @return the time of the last snapshot fed
     */
    private static Long feedInOrder(
            SnapshotRun run, List<List<SnapshotRow>> snapshots, Long previous, Random random)
            throws Exception {
        for (List<SnapshotRow> snapshot : snapshots) {
            RowData mark = run.mark(snapshot.get(0));
            long time = mark.getLong(SnapshotMarks.TIME);
            if (previous != null && time != previous && random.nextInt(4) > 0) {
                run.watermark(previous);
            }
            List<SnapshotRow> shuffled = new ArrayList<>(snapshot);
            Collections.shuffle(shuffled, random);
            run.rows(shuffled);
            run.complete(mark);
            previous = time;
        }
        return previous;
    }

    private static List<SnapshotRow> flat(List<List<SnapshotRow>> snapshots) {
        return snapshots.stream().flatMap(List::stream).toList();
    }

    /**
     * Bitemporal snapshots that restate older versions, applied in order with watermarks between
     * system sequences: the keys a restated version deletes are found by the scan before that
     * watermark, and the deletes the engine skipped while a key was absent are written once, when a
     * restated version brings the key back (no delete is written twice: no duplicate events).
     * Coverage counters show that all of it happened often.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void restatedVersionsAppliedInOrderEqualTheReference(Backend backend) throws Exception {
        Random random = new Random(2612);
        long scans = 0;
        long scanCatchUps = 0;
        long restatedDeletes = 0;
        int held = 0;
        for (int round = 0; round < rounds(backend); round++) {
            List<List<SnapshotRow>> snapshots = restatingSnapshots(random);
            List<SnapshotRow> rows = flat(snapshots);
            try (SnapshotRun run =
                    new SnapshotRun(spec(TargetType.BITEMPORAL, null, cacheKeys(round)), backend)) {
                feedInOrder(run, snapshots, null, random);
                run.watermark(Long.MAX_VALUE);
                run.drain();
                assertThat(run.table.rows())
                        .as("" + rows)
                        .isEqualTo(expected(TargetType.BITEMPORAL, rows));
                assertThat(run.deadLetters())
                        .as("" + rows)
                        .isEqualTo(expectedDeadLetters(TargetType.BITEMPORAL, rows));
                assertThat(run.function.metrics().duplicates()).as("" + rows).isZero();
                scans += run.operator.scans();
                scanCatchUps += run.function.scanCatchUps();
                restatedDeletes += run.function.restatedDeletes();
                held += run.deadLetters() > 0 ? 1 : 0;
            }
        }
        System.out.println(
                "restated versions on "
                        + backend
                        + ": "
                        + scans
                        + " scans, "
                        + scanCatchUps
                        + " keys caught up by them, "
                        + restatedDeletes
                        + " skipped deletes written late, "
                        + held
                        + " runs with held keys");
        assertThat(scans).isGreaterThan(rounds(backend));
        assertThat(scanCatchUps).isGreaterThan(rounds(backend));
        assertThat(restatedDeletes).isGreaterThan(rounds(backend) / 2);
        assertThat(held).isGreaterThan(rounds(backend) / 4);
    }

    /**
     * A restore after scans: the run goes on from a savepoint taken between two snapshots, and ends
     * with the reference's table and the same scans as a run never restored (the watermark scanned
     * through is kept, so no restating snapshot is scanned for twice).
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoreAfterScansNeitherRescansNorLosesAnything(Backend backend) throws Exception {
        Random random = new Random(3613);
        int restoredAfterAScan = 0;
        for (int round = 0; round < rounds(backend) / 2; round++) {
            List<List<SnapshotRow>> snapshots = restatingSnapshots(random);
            List<SnapshotRow> rows = flat(snapshots);
            long seed = random.nextLong();
            long unrestoredScans;
            try (SnapshotRun run = new SnapshotRun(spec(TargetType.BITEMPORAL), backend)) {
                feedInOrder(run, snapshots, null, new Random(seed));
                run.watermark(Long.MAX_VALUE);
                unrestoredScans = run.operator.scans();
            }
            Random same = new Random(seed);
            // mostly in the second half, after the first restatements
            int cut =
                    snapshots.size() / 2
                            + random.nextInt(snapshots.size() - snapshots.size() / 2 + 1);
            OperatorSubtaskState state;
            ChangelogTable table;
            Long previous;
            long scansBefore;
            try (SnapshotRun run = new SnapshotRun(spec(TargetType.BITEMPORAL), backend)) {
                previous = feedInOrder(run, snapshots.subList(0, cut), null, same);
                run.drain();
                scansBefore = run.operator.scans();
                state = run.snapshot(1);
                table = run.table;
            }
            restoredAfterAScan += scansBefore > 0 ? 1 : 0;
            try (SnapshotRun run =
                    new SnapshotRun(spec(TargetType.BITEMPORAL), backend, state, table)) {
                feedInOrder(run, snapshots.subList(cut, snapshots.size()), previous, same);
                run.watermark(Long.MAX_VALUE);
                run.drain();
                assertThat(run.table.rows())
                        .as("cut at " + cut + " of " + rows)
                        .isEqualTo(expected(TargetType.BITEMPORAL, rows));
                assertThat(scansBefore + run.operator.scans())
                        .as("cut at " + cut + " of " + rows)
                        .isEqualTo(unrestoredScans);
            }
        }
        assertThat(restoredAfterAScan).isGreaterThan(rounds(backend) / 10);
    }

    /**
     * A key forgotten by the tombstone retention, then brought back by a restated older version:
     * the delete that would close it lies before the history the key retains, so the restated row
     * goes to the late events ({@code BEFORE_RETAINED_HISTORY}), as any correction of dropped
     * history does (docs/semantics.md), and the target keeps no row open past its end.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestatementOfAForgottenKeyIsLateNotLeftOpen(Backend backend) throws Exception {
        EngineSpec spec = spec(TargetType.BITEMPORAL, Duration.ofMillis(10));
        try (SnapshotRun run = new SnapshotRun(spec, backend)) {
            List<Object> row = Arrays.asList("a", "x");
            // (system sequence, version): key 1 in (1, 1) only; key 2 everywhere
            int[][] snapshots = {{1, 1}, {2, 3}, {3, 10}, {5, 2}};
            for (int[] s : snapshots) {
                List<SnapshotRow> rows = new ArrayList<>();
                if (s[0] == 1) {
                    rows.add(new SnapshotRow(1, s[1], s[0], row));
                }
                rows.add(new SnapshotRow(2, s[1], s[0], row));
                run.rows(rows);
                RowData mark = run.mark(rows.get(0));
                run.complete(mark);
                run.watermark(mark.getLong(SnapshotMarks.TIME));
            }
            run.harness.setProcessingTime(1_000); // key 1's tombstone expires
            SnapshotRow back = new SnapshotRow(1, 5, 6, Arrays.asList("b", "y"));
            List<SnapshotRow> rows = List.of(back, new SnapshotRow(2, 5, 6, row));
            run.rows(rows);
            RowData mark = run.mark(back);
            run.complete(mark);
            run.watermark(mark.getLong(SnapshotMarks.TIME));
            run.drain();
            assertThat(run.lateEvents()).isOne();
            // the restated row itself, as before the key's retained history
            assertThat(run.harness.getSideOutput(SideOutputs.LATE_EVENTS).peek().getValue())
                    .asString()
                    .contains(DeadLetter.BEFORE_RETAINED_HISTORY)
                    .contains("\"b\"");
            assertThat(run.table.rows()).noneMatch(r -> r.get(0).equals(1) && "b".equals(r.get(1)));
        }
    }

    /**
     * Rows behind the input's watermark go to the late events as they arrive, with nothing else
     * changed: a row of a complete snapshot, and one of a version the watermark passed without a
     * complete mark, while the keys' timers stay at the last complete snapshot (version 1) and the
     * watermark is just below version 10, as a source's is while it reads that snapshot.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void rowsBehindTheWatermarkAreLateAtOnce(Backend backend) throws Exception {
        for (TargetType type : TargetType.values()) {
            try (SnapshotRun run = new SnapshotRun(spec(type), backend)) {
                Integer sys = type == TargetType.BITEMPORAL ? 101 : null;
                List<Object> row = Arrays.asList("a", "x");
                SnapshotRow first = new SnapshotRow(1, 1, sys, row);
                run.rows(List.of(first));
                RowData mark = run.mark(first);
                run.complete(mark);
                run.watermark(mark.getLong(SnapshotMarks.TIME));
                Integer laterSys = type == TargetType.BITEMPORAL ? 110 : null;
                long below =
                        run.mark(new SnapshotRow(1, 10, laterSys, row)).getLong(SnapshotMarks.TIME)
                                - 1;
                run.watermark(below);
                run.drain();
                Set<List<Object>> before = new HashSet<>(run.table.rows());
                Integer lateSys = type == TargetType.BITEMPORAL ? 105 : null;
                run.rows(
                        List.of(
                                new SnapshotRow(2, 1, sys, row),
                                new SnapshotRow(3, 5, lateSys, row)));
                assertThat(run.lateEvents()).as(type.name()).isEqualTo(2);
                assertThat(run.function.metrics().droppedLate.getCount()).isEqualTo(2);
                assertThat(run.harness.getSideOutput(SideOutputs.LATE_EVENTS).peek().getValue())
                        .asString()
                        .contains(DeadLetter.SNAPSHOT_OUT_OF_ORDER);
                run.drain();
                assertThat(run.table.rows()).isEqualTo(before);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoreWhileASnapshotIsPendingLosesNothing(Backend backend) throws Exception {
        Random random = new Random(3612);
        int restoredWithPendingRows = 0;
        for (int round = 0; round < rounds(backend) / 4; round++) {
            for (TargetType type : TargetType.values()) {
                List<SnapshotRow> rows = randomSnapshots(random, type);
                List<SnapshotRow> shuffled = new ArrayList<>(rows);
                Collections.shuffle(shuffled, random);
                int cut = random.nextInt(shuffled.size() + 1);
                Map<List<Object>, SnapshotRow> firstRows = new LinkedHashMap<>();
                for (SnapshotRow r : shuffled) {
                    firstRows.putIfAbsent(Arrays.asList(r.version(), r.sys()), r);
                }
                var state =
                        snapshotAfter(type, backend, shuffled.subList(0, cut), firstRows.values());
                restoredWithPendingRows += cut > 0 ? 1 : 0;
                try (SnapshotRun run = new SnapshotRun(spec(type), backend, state)) {
                    run.rows(shuffled.subList(cut, shuffled.size()));
                    for (SnapshotRow first : firstRows.values()) {
                        run.complete(run.mark(first));
                    }
                    run.watermark(Long.MAX_VALUE);
                    run.drain();
                    assertThat(run.table.rows())
                            .as(type + " cut at " + cut + " of " + rows)
                            .isEqualTo(expected(type, rows));
                }
            }
        }
        assertThat(restoredWithPendingRows).isGreaterThan(rounds(backend) / 2);
    }

    /**
     * The state of a run that received {@code rows} and, complete but not yet passed by the
     * watermark, half of the snapshots: their rows wait in state.
     */
    private static OperatorSubtaskState snapshotAfter(
            TargetType type,
            Backend backend,
            List<SnapshotRow> rows,
            Collection<SnapshotRow> firstRows)
            throws Exception {
        try (SnapshotRun run = new SnapshotRun(spec(type), backend)) {
            run.rows(rows);
            int i = 0;
            for (SnapshotRow first : firstRows) {
                if (i++ % 2 == 0) {
                    run.complete(run.mark(first));
                }
            }
            run.drain();
            assertThat(run.table.rows()).isEmpty(); // nothing before the watermark
            return run.snapshot(1);
        }
    }

    /**
     * TRACK HISTORY ON (v1) and a version column kept in the target (COLUMNS naming it): a change
     * of v2 alone rewrites the row in place, and the kept version never opens a version of its own.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void trackHistoryAndAKeptVersionColumnEqualTheReference(Backend backend) throws Exception {
        Random random = new Random(4613);
        int inPlace = 0;
        for (int round = 0; round < rounds(backend) / 2; round++) {
            for (TargetType type : List.of(TargetType.SCD2, TargetType.BITEMPORAL)) {
                for (boolean keepVersion : List.of(false, true)) {
                    List<String> names = new ArrayList<>(List.of("id", "v1", "v2"));
                    List<LogicalType> types =
                            new ArrayList<>(
                                    List.of(
                                            new IntType(),
                                            VarCharType.STRING_TYPE,
                                            VarCharType.STRING_TYPE));
                    if (keepVersion) {
                        names.add("ver");
                        types.add(new IntType());
                    }
                    names.add("__seq");
                    types.add(new IntType(false));
                    if (type == TargetType.BITEMPORAL) {
                        names.add("__sys");
                        types.add(new IntType(false));
                    }
                    EngineSpec.Builder b =
                            EngineSpec.builder(
                                            "tracked",
                                            type,
                                            RowType.of(
                                                    types.toArray(new LogicalType[0]),
                                                    names.toArray(new String[0])))
                                    .keys("id")
                                    .trackHistoryOn(List.of("v1"))
                                    .fromSnapshot();
                    if (keepVersion) {
                        b.sequenceColumns("ver");
                    }
                    ReferenceModel.Options options =
                            new ReferenceModel.Options(
                                    keepVersion ? List.of("v1", "v2", "ver") : List.of("v1", "v2"),
                                    Set.of(),
                                    false,
                                    Set.of("v1"),
                                    keepVersion ? "ver" : null,
                                    null);
                    List<SnapshotRow> rows = new ArrayList<>();
                    for (SnapshotRow r : randomSnapshots(random, type)) {
                        List<Object> values = new ArrayList<>(r.values());
                        if (keepVersion) {
                            values.add(r.version());
                        }
                        rows.add(new SnapshotRow(r.key(), r.version(), r.sys(), values));
                    }
                    List<SnapshotRow> shuffled = new ArrayList<>(rows);
                    Collections.shuffle(shuffled, random);
                    try (SnapshotRun run = new SnapshotRun(b.build(), backend)) {
                        run.rows(shuffled);
                        Map<List<Object>, RowData> marks = new LinkedHashMap<>();
                        for (SnapshotRow r : shuffled) {
                            marks.putIfAbsent(Arrays.asList(r.version(), r.sys()), run.mark(r));
                        }
                        for (RowData m : marks.values()) {
                            run.complete(m);
                        }
                        run.watermark(Long.MAX_VALUE);
                        run.drain();
                        Set<List<Object>> expected =
                                (type == TargetType.SCD2
                                                ? SnapshotReference.scd2(rows, options)
                                                : SnapshotReference.bitemporal(rows, options))
                                        .table().stream()
                                                .map(ArrayList::new)
                                                .collect(Collectors.toSet());
                        assertThat(run.table.rows())
                                .as(type + " keep version " + keepVersion + " " + rows)
                                .isEqualTo(expected);
                        if (type == TargetType.SCD2) { // tracking v1 alone merges versions
                            int untracked =
                                    SnapshotReference.scd2(
                                                    rows,
                                                    new ReferenceModel.Options(
                                                            options.valueColumns(),
                                                            Set.of(),
                                                            false,
                                                            null,
                                                            options.sequenceColumn(),
                                                            null))
                                            .table()
                                            .size();
                            inPlace += untracked > expected.size() ? 1 : 0;
                        }
                    }
                }
            }
        }
        assertThat(inPlace).isPositive();
    }
}
