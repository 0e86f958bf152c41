package dev.autocdc.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.flink.OperatorRun.Backend;
import dev.autocdc.operators.flink.spec.EngineSpec;
import dev.autocdc.operators.flink.spec.OutputMode;
import dev.autocdc.operators.flink.targets.FlinkTimeline;
import dev.autocdc.operators.reference.ReferenceModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The SCD2 timeline in blocks ({@link FlinkTimeline}), property style: long histories (up to 150
 * events per key) that arrive mostly in order with late events landing up to 40 positions back,
 * ties and duplicates, with block sizes from 1 to 8 so that blocks fill, move, grow past twice
 * their size and split. The layout of the blocks is checked after every event; every run's table
 * equals the reference model's, and so does a run snapshotted at a random point and restored with
 * another block size. Every other restored run is written as builds before the chain keys wrote
 * their recent entries, and migrated on restore. (Test builds also check, after every event, that
 * the recent entries' chain keys are the first keys of the chain: an assertion in {@link
 * FlinkTimeline}.)
 */
class TimelineBlocksPropertyTest {

    private int restores;

    @ParameterizedTest
    @EnumSource(Backend.class)
    void longHistoriesWithLateEventsEqualTheReference(Backend backend) throws Exception {
        Random random = new Random(4242 + backend.ordinal());
        int[] sizes = {1, 2, 3, 8};
        int rounds = backend == Backend.ROCKSDB ? 30 : 60;
        long late = 0;
        for (int round = 0; round < rounds; round++) {
            boolean ignoreNull = round % 2 == 1;
            boolean trackV1 = round % 3 == 2;
            List<ReferenceModel.Event> events = events(random);
            late += lateCount(events);
            Set<List<Object>> expected = reference(events, ignoreNull, trackV1);
            String context = "round " + round + " ignoreNull=" + ignoreNull + " trackV1=" + trackV1;

            int blockSize = sizes[random.nextInt(sizes.length)];
            EngineSpec spec =
                    AutoCdcFunctionTest.randomSpec(TargetType.SCD2, ignoreNull, trackV1, blockSize);
            ChangelogTable straight =
                    new ChangelogTable(spec.targetPrimaryKey(), OutputMode.RETRACT);
            try (OperatorRun run = OperatorRun.start(spec, backend)) {
                for (ReferenceModel.Event e : events) {
                    run.process(run.input(AutoCdcFunctionTest.inputValues(TargetType.SCD2, e)));
                    run.checkTimelineLayout(e.key(), blockSize);
                }
                straight.apply(run.newOutput());
            }
            assertThat(straight.rows())
                    .as(context + " block size " + blockSize + " " + events)
                    .isEqualTo(expected);

            int cut = random.nextInt(events.size() + 1);
            Set<List<Object>> resumed =
                    restoredWithBlockSize(
                            spec,
                            backend,
                            rows(events, TargetType.SCD2),
                            cut,
                            AutoCdcFunctionTest.randomSpec(
                                    TargetType.SCD2,
                                    ignoreNull,
                                    trackV1,
                                    sizes[random.nextInt(sizes.length)]));
            assertThat(resumed).as(context + " cut at " + cut).isEqualTo(expected);
        }
        System.out.println(
                "timeline blocks on "
                        + backend
                        + ": "
                        + rounds
                        + " runs, "
                        + late
                        + " late events");
        assertThat(late).isGreaterThan(rounds * 5L);
    }

    /**
     * The bitemporal belief in blocks: long histories in system order with corrections (a key's
     * earlier business time at a later system time: the in-order path's late case, which walks
     * blocks) and events late in system time (the recompute), block sizes 1 to 8, a snapshot at a
     * random point restored with another block size.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void bitemporalLongHistoriesEqualTheReference(Backend backend) throws Exception {
        Random random = new Random(777 + backend.ordinal());
        int[] sizes = {1, 2, 3, 8};
        int rounds = backend == Backend.ROCKSDB ? 12 : 25;
        long corrections = 0;
        for (int round = 0; round < rounds; round++) {
            boolean ignoreNull = round % 2 == 1;
            boolean trackV1 = round % 3 == 2;
            List<ReferenceModel.Event> events = bitemporalEvents(random);
            corrections += correctionsInSystemOrder(events);
            ReferenceModel.Options options =
                    new ReferenceModel.Options(
                            List.of("v1", "v2"),
                            ignoreNull ? Set.of("v1", "v2") : Set.of(),
                            false,
                            trackV1 ? Set.of("v1") : null,
                            null,
                            null);
            Set<List<Object>> expected =
                    ReferenceModel.bitemporal(events, options).stream()
                            .map(ArrayList::new)
                            .collect(Collectors.toSet());
            int cut = random.nextInt(events.size() + 1);
            String context =
                    "round "
                            + round
                            + " ignoreNull="
                            + ignoreNull
                            + " trackV1="
                            + trackV1
                            + " cut at "
                            + cut;

            EngineSpec spec =
                    AutoCdcFunctionTest.randomSpec(
                            TargetType.BITEMPORAL,
                            ignoreNull,
                            trackV1,
                            sizes[random.nextInt(sizes.length)]);
            Set<List<Object>> table =
                    restoredWithBlockSize(
                            spec,
                            backend,
                            rows(events, TargetType.BITEMPORAL),
                            cut,
                            AutoCdcFunctionTest.randomSpec(
                                    TargetType.BITEMPORAL,
                                    ignoreNull,
                                    trackV1,
                                    sizes[random.nextInt(sizes.length)]));
            assertThat(table).as(context + " " + events).isEqualTo(expected);
        }
        System.out.println(
                "bitemporal blocks on "
                        + backend
                        + ": "
                        + rounds
                        + " runs, "
                        + corrections
                        + " corrections in system order");
        assertThat(corrections).isGreaterThan(rounds * 5L);
    }

    /**
     * Two keys, 40-240 events in all; system time is the arrival index (one event in 10 shares the
     * previous one's), except for one event in 15 that arrives up to 30 positions after its system
     * time; one in 5 is a correction 1-12 versions back.
     */
    private static List<ReferenceModel.Event> bitemporalEvents(Random random) {
        String[] domain = {"a", "b", "c", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        int[] newest = new int[3];
        int total = 40 + random.nextInt(200);
        int sys = 0;
        for (int i = 0; i < total; i++) {
            sys =
                    i > 0 && random.nextInt(10) == 0
                            ? sys
                            : i + 1; // one in 10 shares the previous system time
            int key = 1 + random.nextInt(2);
            int seq =
                    random.nextInt(5) == 0 && newest[key] > 0
                            ? Math.max(1, newest[key] - random.nextInt(12))
                            : newest[key] + 1 + random.nextInt(2);
            newest[key] = Math.max(newest[key], seq);
            List<Object> values =
                    Arrays.asList(domain[random.nextInt(4)], domain[random.nextInt(4)]);
            events.add(
                    new ReferenceModel.Event(
                            key,
                            seq,
                            sys,
                            random.nextInt(12) == 0
                                    ? ReferenceModel.Kind.DELETE
                                    : ReferenceModel.Kind.UPSERT,
                            values,
                            null));
        }
        for (int i = events.size() - 1; i >= 0; i--) {
            if (random.nextInt(15) == 0) {
                int to = Math.min(events.size() - 1, i + 1 + random.nextInt(30));
                events.add(to, events.remove(i));
            }
        }
        return events;
    }

    private static long correctionsInSystemOrder(List<ReferenceModel.Event> events) {
        long n = 0;
        int[] seq = new int[3];
        int[] sys = new int[3];
        for (ReferenceModel.Event e : events) {
            int key = (Integer) e.key();
            if (e.seq() < seq[key] && e.sys() > sys[key]) {
                n++;
            }
            seq[key] = Math.max(seq[key], e.seq());
            sys[key] = Math.max(sys[key], e.sys());
        }
        return n;
    }

    /**
     * The run restored at {@code cut} with another block size (see {@link
     * OperatorRun#runRestoredAt}); every other one written before the cut as builds before the
     * chain keys did, and so migrated on restore.
     */
    private Set<List<Object>> restoredWithBlockSize(
            EngineSpec spec, Backend backend, List<Object[]> rows, int cut, EngineSpec restored)
            throws Exception {
        return OperatorRun.runRestoredAt(spec, restores++ % 2 == 0, restored, backend, rows, cut);
    }

    private static List<Object[]> rows(List<ReferenceModel.Event> events, TargetType type) {
        return events.stream()
                .map(e -> AutoCdcFunctionTest.inputValues(type, e))
                .collect(Collectors.toList());
    }

    /** Two keys, mostly in order; a fifth of the events moved up to 40 positions later. */
    private static List<ReferenceModel.Event> events(Random random) {
        String[] domain = {"a", "b", "c", null};
        List<ReferenceModel.Event> events = new ArrayList<>();
        for (int key = 1; key <= 2; key++) {
            int n = 20 + random.nextInt(130);
            for (int i = 0; i < n; i++) {
                int seq = 1 + random.nextInt(n + n / 4); // gaps, ties and duplicates
                List<Object> values =
                        Arrays.asList(domain[random.nextInt(4)], domain[random.nextInt(4)]);
                events.add(
                        new ReferenceModel.Event(
                                key,
                                seq,
                                null,
                                random.nextInt(12) == 0
                                        ? ReferenceModel.Kind.DELETE
                                        : ReferenceModel.Kind.UPSERT,
                                values,
                                null));
            }
        }
        events.sort(Comparator.comparingInt(ReferenceModel.Event::seq));
        for (int i = 0; i < events.size(); i++) {
            if (random.nextInt(5) == 0) {
                int to = Math.min(events.size() - 1, i + 1 + random.nextInt(40));
                events.add(to, events.remove(i));
            }
        }
        return events;
    }

    private static long lateCount(List<ReferenceModel.Event> events) {
        long late = 0;
        int[] newest = new int[3];
        for (ReferenceModel.Event e : events) {
            int key = (Integer) e.key();
            if (e.seq() < newest[key]) {
                late++;
            }
            newest[key] = Math.max(newest[key], e.seq());
        }
        return late;
    }

    private static Set<List<Object>> reference(
            List<ReferenceModel.Event> events, boolean ignoreNull, boolean trackV1) {
        ReferenceModel.Options options =
                new ReferenceModel.Options(
                        List.of("v1", "v2"),
                        ignoreNull ? Set.of("v1", "v2") : Set.of(),
                        false,
                        trackV1 ? Set.of("v1") : null,
                        null,
                        null);
        return ReferenceModel.scd2(events, options).stream()
                .map(ArrayList::new)
                .collect(Collectors.toSet());
    }
}
