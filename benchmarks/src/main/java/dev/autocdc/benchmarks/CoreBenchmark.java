package dev.autocdc.benchmarks;

import dev.autocdc.operators.core.BitemporalEngine;
import dev.autocdc.operators.core.ChangeEvent;
import dev.autocdc.operators.core.ColumnType;
import dev.autocdc.operators.core.EngineCounters;
import dev.autocdc.operators.core.Flow;
import dev.autocdc.operators.core.FlowBuilder;
import dev.autocdc.operators.core.InMemoryBitemporalStore;
import dev.autocdc.operators.core.InMemoryTimeline;
import dev.autocdc.operators.core.Op;
import dev.autocdc.operators.core.Scd2Engine;
import dev.autocdc.operators.core.StateCodec;
import dev.autocdc.operators.core.TargetChange;
import dev.autocdc.operators.core.TargetType;
import dev.autocdc.operators.core.Timeline;
import dev.autocdc.operators.core.TimelineEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The core alone, without Flink: the workload's events (W1: in order per key; W3: 10% late by 1-10
 * versions; W4: bitemporal with 5% corrections) through {@link Scd2Engine} or {@link
 * BitemporalEngine} over in-memory timelines, and the state codec's write and read of the entries
 * those events leave. A change to the fold, the engines or the codec is measured here first; {@code
 * benchmarks/jmh.sh} runs it with JMH's allocation profiler, whose {@code gc.alloc.rate.norm}
 * (bytes allocated per event) does not drift between runs as times do.
 *
 * <p>Each invocation applies the workload's first {@value #EVENTS} events over {@value #KEYS} keys
 * to fresh in-memory stores (about 30 events per key, so most events meet a key with history). No
 * setup runs per invocation: JMH's allocation profiler counts everything the thread allocates in an
 * iteration, so what it reports per event is the engine's own allocation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CoreBenchmark {
    static final int KEYS = 1_000;
    static final int EVENTS = 30_000;
    static final int ENTRIES = 10_000;

    @Param({"W1", "W3", "W4"})
    public String workload;

    private Flow flow;
    private Scd2Engine scd2;
    private BitemporalEngine bitemporal;
    private StateCodec codec;
    private ChangeEvent[] events;
    private Timeline[] timelines;
    private InMemoryBitemporalStore[] stores;
    private List<TimelineEntry> entries;
    private byte[] encodedEntries;
    private ByteArrayOutputStream bytesOut;
    private DataOutputStream dataOut;

    @Setup(Level.Trial)
    public void events() throws IOException {
        boolean bi = workload.equals("W4");
        FlowBuilder b =
                Flow.builder("bench", bi ? TargetType.BITEMPORAL : TargetType.SCD2)
                        .column("k", ColumnType.of(ColumnType.Kind.BIGINT))
                        .column("a", ColumnType.of(ColumnType.Kind.INT))
                        .column("b", ColumnType.of(ColumnType.Kind.STRING))
                        .column("c", ColumnType.of(ColumnType.Kind.BIGINT))
                        .keys("k")
                        .sequenceBy(ColumnType.of(ColumnType.Kind.BIGINT));
        if (bi) {
            b.systemSequenceBy(ColumnType.of(ColumnType.Kind.BIGINT));
        }
        flow = b.build();
        scd2 = new Scd2Engine(flow, EngineCounters.NONE);
        bitemporal = new BitemporalEngine(flow, EngineCounters.NONE);
        codec = new StateCodec(flow.columnTypes());
        Workload w = new Workload(workload, KEYS, EVENTS);
        events = new ChangeEvent[EVENTS];
        for (int i = 0; i < EVENTS; i++) {
            events[i] = event(w, i, bi);
        }
        // the entries the events leave, for the codec's benchmarks
        apply();
        entries = new ArrayList<>();
        for (int k = 0; entries.size() < ENTRIES; k = (k + 1) % KEYS) {
            var it = timelines[k].newestFirst(); // the newest entries of the keys in turn
            for (int skip = 0; skip < entries.size() / KEYS && it.hasNext(); skip++) {
                it.next();
            }
            if (it.hasNext()) {
                entries.add(it.next());
            }
        }
        bytesOut = new ByteArrayOutputStream(1 << 20);
        dataOut = new DataOutputStream(bytesOut);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        for (TimelineEntry e : entries) {
            codec.writeEntry(e, out);
        }
        encodedEntries = bytes.toByteArray();
    }

    private ChangeEvent event(Workload w, long i, boolean bi) {
        Object[] row = {w.key(i), w.intPayload(i), w.stringPayload(i), w.longPayload(i)};
        return new ChangeEvent(
                w.isDelete(i) ? Op.DELETE : Op.UPSERT,
                row,
                flow.sequenceCodec().encode(w.sequence(i)),
                bi ? flow.systemSequenceCodec().encode(w.systemSequence(i)) : null,
                null);
    }

    /** Fresh, empty stores for every key. */
    private void reset() {
        boolean bi = workload.equals("W4");
        timelines = new Timeline[KEYS];
        stores = new InMemoryBitemporalStore[KEYS];
        for (int k = 0; k < KEYS; k++) {
            if (bi) {
                stores[k] = new InMemoryBitemporalStore();
                timelines[k] = stores[k].belief();
            } else {
                timelines[k] = new InMemoryTimeline();
            }
        }
    }

    private void applyOne(ChangeEvent e, List<TargetChange> out) {
        int k = (int) (long) (Long) e.row()[0];
        if (stores[k] != null) {
            bitemporal.apply(stores[k], e, out);
        } else {
            scd2.apply(timelines[k], e, out);
        }
    }

    private int apply() {
        reset();
        List<TargetChange> out = new ArrayList<>(4);
        int changes = 0;
        for (ChangeEvent e : events) {
            applyOne(e, out);
            changes += out.size();
            out.clear();
        }
        return changes;
    }

    /** Time per event of the engine of the workload's type; the changes it emits are consumed. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public int engine() {
        return apply();
    }

    /**
     * Time per entry to encode {@value #ENTRIES} of the entries the events leave (the newest of
     * each key first), as state values, into a reused buffer.
     */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public int writeEntries() throws IOException {
        bytesOut.reset();
        for (TimelineEntry e : entries) {
            codec.writeEntry(e, dataOut);
        }
        return bytesOut.size();
    }

    /** Time per entry to decode them. */
    @Benchmark
    @OperationsPerInvocation(ENTRIES)
    public void readEntries(Blackhole bh) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(encodedEntries));
        for (int i = 0; i < entries.size(); i++) {
            bh.consume(codec.readEntry(in));
        }
    }
}
