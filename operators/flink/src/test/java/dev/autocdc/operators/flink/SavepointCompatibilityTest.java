package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.OperatorRun.Change;
import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.SideOutputs;
import dev.autocdc.operators.flink.spec.ControlColumn;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.spec.TypeMapping;
import dev.autocdc.operators.flink.state.StateDescriptors;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.RowDataSerializer;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DateType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.IntType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.TimestampType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Savepoints taken by earlier builds restore into this one, for every target type (the state
 * layout's promise to users who keep histories for years, in the pattern of Flink's {@code
 * flink-migration-test-utils}).
 *
 * <p>Each directory under {@code src/test/resources/savepoints/} was written by one build (named by
 * its date and commit): per fixture, a canonical savepoint of the operator after the fixture's
 * first {@link Fixture#PHASE_ONE} events, and {@code expected.txt}, what that build produced: the
 * materialized target after those events, the target after the remaining events and every timer,
 * and the dead letters and late events of the remaining events. The test runs the first events here
 * from scratch (the target must be what the old build had), restores the old savepoint on RocksDB
 * and on the heap backend, runs the remaining events on it, and requires the old build's target,
 * dead letters and late events.
 *
 * <p>A layout change keeps every directory passing (it adds a reader, never drops one). Write a new
 * directory after a layout change with {@code -Dautocdc.savepoints.write=<date>-<commit>} (run in
 * {@code operators/flink}). A directory may hold only some fixtures: {@code 2026-11-30-860a79e},
 * the build before the recent entries kept the chain keys (SCD2 recent entries stored as a block,
 * the bitemporal ones as a head and a block, both in the single serializer class of those builds),
 * was written with this generator from a checkout of that commit, without the truncate fixture
 * (that build had the tombstone-timer bug fixed in adb6303, which the fixture's events hit).
 *
 * <p>The events come from {@link Fixture#events()}, a fixed-seed {@link Random} (whose algorithm
 * Java specifies), and each {@code expected.txt} records their digest: never change the generator,
 * add a fixture instead.
 */
class SavepointCompatibilityTest {

    static final String WRITE_PROPERTY = "autocdc.savepoints.write";
    private static final long STEP_MS = 10;

    /** The committed savepoint directories, crossed with the backends to restore into. */
    static Stream<Arguments> savepoints() throws IOException, URISyntaxException {
        URL root = SavepointCompatibilityTest.class.getResource("/savepoints");
        assertThat(root).as("committed savepoints on the test classpath").isNotNull();
        List<Arguments> all = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(Path.of(root.toURI()))) {
            for (Path dir : dirs.sorted().toList()) {
                for (Fixture f : Fixture.values()) {
                    if (!Files.isDirectory(dir.resolve(f.directory()))) {
                        continue; // a build writes the fixtures whose layout it is the first to
                        // have
                    }
                    for (Backend b : Backend.values()) {
                        all.add(
                                Arguments.of(
                                        dir.getFileName().toString(),
                                        f,
                                        b,
                                        dir.resolve(f.directory())));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} on {2}")
    @MethodSource("savepoints")
    void anEarlierBuildsSavepointRestores(String build, Fixture fixture, Backend backend, Path dir)
            throws Exception {
        Expected expected = Expected.read(dir.resolve("expected.txt"));
        List<Object[]> events = fixture.events();
        assertThat(expected.eventsDigest)
                .as("the fixture's events are those the savepoint was taken on")
                .isEqualTo(digest(events));

        ChangelogTable table =
                new ChangelogTable(fixture.spec().targetPrimaryKey(), OutputMode.RETRACT);
        try (Run fresh = fixture.start(backend, null)) {
            fresh.runEvents(events, 0, Fixture.PHASE_ONE, table);
        }
        assertThat(render(table))
                .as("the first events' target, as " + build + " had it")
                .isEqualTo(expected.firstTarget);

        OperatorSubtaskState saved =
                OperatorSnapshotUtil.readStateHandle(dir.resolve("savepoint").toString());
        try (Run restored = fixture.start(backend, saved)) {
            restored.harness.setProcessingTime((Fixture.PHASE_ONE - 1) * STEP_MS);
            restored.runEvents(events, Fixture.PHASE_ONE, events.size(), table);
            restored.fireAllTimers(events.size(), table);
            assertThat(render(table))
                    .as("the target after the restore")
                    .isEqualTo(expected.finalTarget);
            assertThat(payloadsAsValues(restored.sideOutput(SideOutputs.DEAD_LETTERS)))
                    .as("dead letters after the restore")
                    .isEqualTo(payloadsAsValues(expected.deadLetters));
            assertThat(payloadsAsValues(restored.sideOutput(SideOutputs.LATE_EVENTS)))
                    .as("late events after the restore")
                    .isEqualTo(payloadsAsValues(expected.lateEvents));
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Letters ({@code REASON payload}) with their payloads as values, whatever the text format of
     * the build that wrote them: a payload's ROW fields were arrays before 2026-12-01 and are
     * objects since, and its timestamps were ISO text ({@code 2026-01-01T07:33}) and are the json
     * format's ({@code 2026-01-01 07:33:00}). The state's promise is the same letters, not their
     * presentation.
     */
    private static List<String> payloadsAsValues(List<String> letters) throws Exception {
        List<String> out = new ArrayList<>();
        for (String letter : letters) {
            int space = letter.indexOf(' ');
            JsonNode payload = JSON.readTree(letter.substring(space + 1));
            StringBuilder b = new StringBuilder(letter.substring(0, space));
            payload.fields()
                    .forEachRemaining(
                            f ->
                                    b.append(' ')
                                            .append(f.getKey())
                                            .append('=')
                                            .append(value(f.getValue())));
            out.add(b.toString());
        }
        return out;
    }

    private static String value(JsonNode v) {
        if (v.isObject() || v.isArray()) {
            List<String> items = new ArrayList<>();
            v.elements().forEachRemaining(e -> items.add(value(e)));
            return items.toString();
        }
        String text = v.isNull() ? "null" : v.asText();
        if (text.matches("\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?Z?")) {
            return LocalDateTime.parse(text.replace(' ', 'T').replace("Z", "")).toString();
        }
        return text;
    }

    /** Writes the savepoints of this build; runs only with {@value #WRITE_PROPERTY} set. */
    @Test
    @EnabledIfSystemProperty(named = WRITE_PROPERTY, matches = ".+")
    void writeSavepointsOfThisBuild() throws Exception {
        String name = System.getProperty(WRITE_PROPERTY);
        for (Fixture fixture : Fixture.values()) {
            Path dir = Path.of("src/test/resources/savepoints", name, fixture.directory());
            Files.createDirectories(dir);
            List<Object[]> events = fixture.events();
            Expected out = new Expected();
            out.eventsDigest = digest(events);
            ChangelogTable table =
                    new ChangelogTable(fixture.spec().targetPrimaryKey(), OutputMode.RETRACT);
            try (Run run = fixture.start(Backend.ROCKSDB, null)) {
                run.runEvents(events, 0, Fixture.PHASE_ONE, table);
                out.firstTarget = render(table);
                OperatorSubtaskState state =
                        run.harness
                                .snapshotWithLocalState(
                                        1,
                                        1,
                                        SavepointType.savepoint(SavepointFormatType.CANONICAL))
                                .getJobManagerOwnedState();
                OperatorSnapshotUtil.writeStateHandle(state, dir.resolve("savepoint").toString());
                int deadBefore = run.sideOutput(SideOutputs.DEAD_LETTERS).size();
                int lateBefore = run.sideOutput(SideOutputs.LATE_EVENTS).size();
                run.runEvents(events, Fixture.PHASE_ONE, events.size(), table);
                run.fireAllTimers(events.size(), table);
                out.finalTarget = render(table);
                List<String> dead = run.sideOutput(SideOutputs.DEAD_LETTERS);
                List<String> late = run.sideOutput(SideOutputs.LATE_EVENTS);
                out.deadLetters = dead.subList(deadBefore, dead.size());
                out.lateEvents = late.subList(lateBefore, late.size());
            }
            out.write(dir.resolve("expected.txt"));
        }
    }

    /**
     * The fixtures: one flow per target type (and SCD1 with truncates, whose floor is broadcast
     * state).
     */
    enum Fixture {
        SCD1,
        SCD1_TRUNCATE,
        SCD2,
        BITEMPORAL;

        /** Events before the savepoint; the rest come after it. */
        static final int PHASE_ONE = 400;

        static final int EVENTS = 650;

        String directory() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        EngineSpec spec() {
            Duration tombstones = Duration.ofMillis(300);
            switch (this) {
                case SCD1:
                    return EngineSpec.builder(
                                    "scd1",
                                    TargetType.SCD1,
                                    RowType.of(
                                            new LogicalType[] {
                                                new IntType(),
                                                VarCharType.STRING_TYPE,
                                                new DecimalType(10, 2),
                                                new ArrayType(VarCharType.STRING_TYPE),
                                                new IntType(),
                                                new BooleanType()
                                            },
                                            new String[] {
                                                "id", "name", "amount", "tags", "__seq", "__delete"
                                            }))
                            .keys("id")
                            .ignoreNullUpdates()
                            .tombstoneRetention(tombstones)
                            .build();
                case SCD1_TRUNCATE:
                    return EngineSpec.builder(
                                    "scd1_truncate",
                                    TargetType.SCD1,
                                    RowType.of(
                                            new LogicalType[] {
                                                new IntType(),
                                                VarCharType.STRING_TYPE,
                                                new IntType(),
                                                new BooleanType(),
                                                new BooleanType()
                                            },
                                            new String[] {
                                                "id", "name", "__seq", "__delete", "__truncate"
                                            }))
                            .keys("id")
                            .tombstoneRetention(tombstones)
                            .build();
                case SCD2:
                    return EngineSpec.builder(
                                    "scd2",
                                    TargetType.SCD2,
                                    RowType.of(
                                            new LogicalType[] {
                                                new IntType(),
                                                VarCharType.STRING_TYPE,
                                                new DecimalType(10, 2),
                                                new TimestampType(3),
                                                RowType.of(
                                                        new LogicalType[] {
                                                            new IntType(), VarCharType.STRING_TYPE
                                                        },
                                                        new String[] {"a", "b"}),
                                                new BigIntType(),
                                                new BooleanType()
                                            },
                                            new String[] {
                                                "id",
                                                "name",
                                                "amount",
                                                "updated",
                                                "attrs",
                                                "__seq",
                                                "__delete"
                                            }))
                            .keys("id")
                            .trackHistoryExcept(List.of("updated"))
                            .tombstoneRetention(tombstones)
                            .historyRetention(Duration.ofMillis(1500))
                            .build();
                default:
                    return EngineSpec.builder(
                                    "bitemporal",
                                    TargetType.BITEMPORAL,
                                    RowType.of(
                                            new LogicalType[] {
                                                VarCharType.STRING_TYPE,
                                                new IntType(),
                                                VarCharType.STRING_TYPE,
                                                new DecimalType(10, 2),
                                                new DateType(),
                                                new TimestampType(3),
                                                new BooleanType()
                                            },
                                            new String[] {
                                                "region",
                                                "id",
                                                "name",
                                                "amount",
                                                "__seq",
                                                "__sys",
                                                "__delete"
                                            }))
                            .keys("region", "id")
                            .tombstoneRetention(tombstones)
                            .historyRetention(Duration.ofMillis(1500))
                            .build();
            }
        }

        /**
         * The input rows, in arrival order: a few hot keys and many cold ones (so some keys span
         * many blocks), sequences mostly in order with late, very late and repeated ones, deletes,
         * truncates (SCD1_TRUNCATE), system times late and tied (bitemporal), and invalid rows
         * (null key or sequence).
         */
        List<Object[]> events() {
            Random r = new Random(20261201L + ordinal());
            String[] names = {"ana", "bo", null, "çé", "d"};
            List<Object[]> rows = new ArrayList<>();
            int[] lastSeq = new int[24];
            LocalDateTime system = LocalDateTime.of(2026, 1, 1, 0, 0);
            for (int i = 0; i < EVENTS; i++) {
                int key = r.nextBoolean() ? r.nextInt(4) : r.nextInt(24);
                int roll = r.nextInt(100);
                int seq = 1000 + 2 * i;
                if (roll < 15) {
                    seq -= 1 + r.nextInt(60);
                } else if (roll < 18) {
                    seq -= r.nextInt(1000);
                } else if (roll < 23 && lastSeq[key] > 0) {
                    seq = lastSeq[key];
                }
                lastSeq[key] = Math.max(lastSeq[key], seq);
                boolean delete = r.nextInt(100) < 12;
                int bad = r.nextInt(100);
                Integer id = bad == 0 ? null : key;
                Integer sequence = bad == 1 ? null : seq;
                String name = names[r.nextInt(names.length)];
                BigDecimal amount = BigDecimal.valueOf(r.nextInt(100_000), 2);
                int sysRoll = r.nextInt(100);
                system = sysRoll < 3 ? system : system.plusSeconds(1 + r.nextInt(5));
                LocalDateTime recorded =
                        sysRoll >= 3 && sysRoll < 13
                                ? system.minusSeconds(1 + r.nextInt(40))
                                : system;
                switch (this) {
                    case SCD1:
                        rows.add(
                                new Object[] {
                                    id,
                                    name,
                                    amount,
                                    r.nextBoolean() ? null : List.of("t" + r.nextInt(3)),
                                    sequence,
                                    delete
                                });
                        break;
                    case SCD1_TRUNCATE:
                        rows.add(new Object[] {id, name, sequence, delete, r.nextInt(60) == 0});
                        break;
                    case SCD2:
                        rows.add(
                                new Object[] {
                                    id,
                                    name,
                                    amount,
                                    LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(i),
                                    new Object[] {r.nextInt(3), names[r.nextInt(names.length)]},
                                    sequence == null ? null : (long) sequence,
                                    delete
                                });
                        break;
                    default:
                        rows.add(
                                new Object[] {
                                    key % 2 == 0 ? "eu" : "us",
                                    id,
                                    name,
                                    amount,
                                    sequence == null
                                            ? null
                                            : LocalDate.ofEpochDay(19_000 + sequence),
                                    recorded,
                                    delete
                                });
                }
            }
            return rows;
        }

        Run start(Backend backend, OperatorSubtaskState restore) throws Exception {
            EngineSpec spec = spec();
            FlowKeySelector keys = new FlowKeySelector(spec);
            AbstractStreamOperatorTestHarness<RowData> harness;
            if (this == SCD1_TRUNCATE) {
                harness =
                        new KeyedBroadcastOperatorTestHarness<>(
                                new CoBroadcastWithKeyedOperator<>(
                                        new AutoCdcTruncateFunction(spec),
                                        List.of(
                                                StateDescriptors.truncateFloor(
                                                        spec.flow().columnTypes()),
                                                StateDescriptors.truncateFloorArrival())),
                                keys,
                                keys.getProducedType(),
                                1,
                                1,
                                0);
            } else {
                harness =
                        new KeyedOneInputStreamOperatorTestHarness<>(
                                new KeyedProcessOperator<>(new AutoCdcFunction(spec)),
                                keys,
                                keys.getProducedType());
            }
            harness.setStateBackend(backend.create());
            harness.setup(new RowDataSerializer(spec.targetType()));
            if (restore != null) {
                harness.initializeState(restore);
            }
            harness.open();
            return new Run(spec, harness);
        }
    }

    /**
     * One harness running a fixture's events, event {@code i} at processing time {@code i *
     * STEP_MS}.
     */
    static final class Run implements AutoCloseable {
        final EngineSpec spec;
        final AbstractStreamOperatorTestHarness<RowData> harness;
        private int drained;

        Run(EngineSpec spec, AbstractStreamOperatorTestHarness<RowData> harness) {
            this.spec = spec;
            this.harness = harness;
        }

        @SuppressWarnings("unchecked")
        void runEvents(List<Object[]> events, int from, int to, ChangelogTable table)
                throws Exception {
            RowType input = spec.inputType();
            int truncate = input.getFieldNames().indexOf(ControlColumn.TRUNCATE.columnName());
            for (int i = from; i < to; i++) {
                harness.setProcessingTime(i * STEP_MS);
                drainInto(table);
                Object[] values = events.get(i);
                GenericRowData row = new GenericRowData(values.length);
                for (int f = 0; f < values.length; f++) {
                    row.setField(f, TypeMapping.toInternal(input.getTypeAt(f), values[f]));
                }
                StreamRecord<RowData> record = new StreamRecord<>(row, 0L);
                if (System.getProperty("dbg") != null
                        && (values[0] == null
                                || values[0].equals(1)
                                || Boolean.TRUE.equals(values[truncate < 0 ? 0 : truncate]))) {
                    System.out.println(
                            "DBG t=" + i * STEP_MS + " in " + Arrays.deepToString(values));
                }
                if (truncate >= 0 && Boolean.TRUE.equals(values[truncate])) {
                    ((KeyedBroadcastOperatorTestHarness<Object, RowData, RowData, RowData>) harness)
                            .processBroadcastElement(record);
                } else if (truncate >= 0) {
                    ((KeyedBroadcastOperatorTestHarness<Object, RowData, RowData, RowData>) harness)
                            .processElement(record);
                } else {
                    ((KeyedOneInputStreamOperatorTestHarness<Object, RowData, RowData>) harness)
                            .processElement(record);
                }
            }
            drainInto(table);
        }

        /** Moves processing time far past the last event, so that every retention timer fires. */
        void fireAllTimers(int events, ChangelogTable table) throws Exception {
            harness.setProcessingTime(events * STEP_MS + 60_000);
            drainInto(table);
        }

        private void drainInto(ChangelogTable table) {
            List<RowData> all = harness.extractOutputValues();
            RowType target = spec.targetType();
            for (int i = drained; i < all.size(); i++) {
                RowData r = all.get(i);
                Object[] values = new Object[target.getFieldCount()];
                for (int f = 0; f < values.length; f++) {
                    LogicalType t = target.getTypeAt(f);
                    values[f] =
                            TypeMapping.toJava(
                                    t, RowData.createFieldGetter(t, f).getFieldOrNull(r));
                }
                if (System.getProperty("dbg") != null)
                    System.out.println("DBG out " + new Change(r.getRowKind(), values));
                table.apply(new Change(r.getRowKind(), values));
            }
            drained = all.size();
        }

        /** A side output's records as "reason payload" lines, in the order emitted. */
        List<String> sideOutput(OutputTag<DeadLetter> tag) {
            List<String> out = new ArrayList<>();
            var side = harness.getSideOutput(tag);
            if (side != null) {
                side.forEach(r -> out.add(r.getValue().reason + " " + r.getValue().payload));
            }
            return out;
        }

        @Override
        public void close() throws Exception {
            harness.close();
        }
    }

    /** The rows of a materialized target, one line each, sorted. */
    static List<String> render(ChangelogTable table) {
        return table.rows().stream()
                .map(row -> Arrays.deepToString(row.toArray()))
                .sorted()
                .toList();
    }

    static String digest(List<Object[]> events) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (Object[] e : events) {
            sha.update(Arrays.deepToString(e).getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** What the build that wrote a savepoint produced (expected.txt: sections headed by "# "). */
    static final class Expected {
        String eventsDigest;
        List<String> firstTarget;
        List<String> finalTarget;
        List<String> deadLetters;
        List<String> lateEvents;

        static Expected read(Path file) throws IOException {
            Expected e = new Expected();
            List<String> section = null;
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("# events ")) {
                    e.eventsDigest = line.substring("# events ".length());
                } else if (line.equals("# target after the first events")) {
                    section = e.firstTarget = new ArrayList<>();
                } else if (line.equals("# target at the end")) {
                    section = e.finalTarget = new ArrayList<>();
                } else if (line.equals("# dead letters after the savepoint")) {
                    section = e.deadLetters = new ArrayList<>();
                } else if (line.equals("# late events after the savepoint")) {
                    section = e.lateEvents = new ArrayList<>();
                } else if (section != null) {
                    section.add(line);
                } else {
                    throw new IOException(
                            "Unexpected line before any section in " + file + ": " + line);
                }
            }
            return e;
        }

        void write(Path file) throws IOException {
            List<String> lines = new ArrayList<>();
            lines.add("# events " + eventsDigest);
            lines.add("# target after the first events");
            lines.addAll(firstTarget);
            lines.add("# target at the end");
            lines.addAll(finalTarget);
            lines.add("# dead letters after the savepoint");
            lines.addAll(deadLetters);
            lines.add("# late events after the savepoint");
            lines.addAll(lateEvents);
            Files.write(file, lines, StandardCharsets.UTF_8);
        }
    }
}
