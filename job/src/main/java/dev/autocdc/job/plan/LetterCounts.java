package dev.autocdc.job.plan;

import dev.autocdc.operators.flink.runtime.DeadLetter;
import dev.autocdc.operators.flink.runtime.EngineMetrics;
import dev.autocdc.operators.flink.snapshot.SnapshotCompletion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.metrics.MetricGroup;

/**
 * Counts each flow's dead letters and late events by reason in Flink accumulators, so that a run
 * can say at its end what went where (semantics §11: a count that nobody can see is a loss), and in
 * metrics, which a running job's monitoring reads ({@link LetterCounter}); accumulators reach the
 * job's result, which is what a console run has.
 *
 * <p>An accumulator is named {@code autocdc|<flow>|<kind>|<reason>}, kind being {@value #DEAD} or
 * {@value #LATE}.
 */
public final class LetterCounts {
    /** The kind of dead letters. */
    public static final String DEAD = "dead letter";

    /** The kind of late events. */
    public static final String LATE = "late event";

    private static final String SEPARATOR = "|";

    private LetterCounts() {}

    /** The name of the accumulator that counts a flow's letters of one kind and reason. */
    public static String accumulator(String flow, String kind, String reason) {
        return String.join(SEPARATOR, "autocdc", flow, kind, reason);
    }

    /**
     * One line per flow: {@code flow f: 3 dead letters (NULL_KEY 2, PARSE_ERROR 1), 0 late events},
     * with where they went, and, when the safety valve held a snapshot of the flow, how many and
     * what to do. Numbers are grouped by thousands, as the progress line prints them.
     *
     * @param accumulators the job's accumulator results
     * @param flows the flows, in script order
     * @param destinations per flow and kind, where its letters went (a table, a file, the log)
     */
    public static List<String> report(
            Map<String, Object> accumulators,
            List<String> flows,
            Map<String, Map<String, String>> destinations) {
        List<String> lines = new ArrayList<>();
        for (String flow : flows) {
            StringBuilder line = new StringBuilder("flow ").append(flow).append(": ");
            for (String kind : List.of(DEAD, LATE)) {
                Map<String, Long> byReason = new TreeMap<>();
                long total = 0;
                for (Map.Entry<String, Object> a : accumulators.entrySet()) {
                    String prefix = accumulator(flow, kind, "");
                    if (a.getKey().startsWith(prefix) && a.getValue() instanceof Number n) {
                        byReason.put(a.getKey().substring(prefix.length()), n.longValue());
                        total += n.longValue();
                    }
                }
                if (kind.equals(LATE)) {
                    line.append(", ");
                }
                line.append(count(total, kind));
                if (total > 0) {
                    line.append(" (");
                    byReason.forEach(
                            (r, n) -> line.append(r).append(' ').append(count(n)).append(", "));
                    line.setLength(line.length() - 2);
                    line.append(") ").append(destinations.getOrDefault(flow, Map.of()).get(kind));
                }
            }
            if (accumulators.get(SnapshotCompletion.heldAccumulator(flow)) instanceof Number n
                    && n.longValue() > 0) {
                line.append("; ")
                        .append(count(n.longValue(), "snapshot"))
                        .append(" held by the safety valve: it and every later snapshot were not")
                        .append(" applied (their rows wait in state; those of the held one are the")
                        .append(
                                " snapshot_held late events); to apply them, stop with a"
                                        + " savepoint,")
                        .append(" raise snapshot-hold-threshold and restart from it");
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** {@code 2,500} */
    public static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** {@code 1 late event}, {@code 2,500 late events} */
    public static String count(long n, String noun) {
        return count(n) + ' ' + noun + (n == 1 ? "" : "s");
    }

    /**
     * Passes letters on, counting them by reason: in accumulators, and in metrics for monitoring; a
     * letter the engine wrote, which knows no table, gets the flow's source (its erasures table for
     * {@value DeadLetter#ERASED_BEYOND_STATE}). A flow's metrics are in the group {@code
     * flow/<name>}: per reason (group {@code reason/<REASON>}) the counter {@value #DEAD_COUNTER}
     * or {@value #LATE_COUNTER}, and per flow the rate {@value #DEAD_RATE} or {@value #LATE_RATE}
     * (events per second over the last minute).
     */
    public static final class LetterCounter extends RichMapFunction<DeadLetter, DeadLetter> {
        public static final String DEAD_COUNTER = EngineMetrics.DEAD_LETTERS;
        public static final String LATE_COUNTER = "num_late_events_sent";
        public static final String DEAD_RATE = "dead_letters_per_second";
        public static final String LATE_RATE = "late_events_per_second";

        private final String kind;
        private final String source;
        private final String erasures;
        private transient Map<String, Counter> byReason;
        private transient Map<String, Meter> rates;

        /**
         * @param source the flow's source table, as the flow names it
         * @param erasures the flow's erasures table; null when none
         */
        LetterCounter(String kind, String source, String erasures) {
            this.kind = kind;
            this.source = source;
            this.erasures = erasures;
        }

        @Override
        public void open(OpenContext context) {
            byReason = new HashMap<>();
            rates = new HashMap<>();
        }

        @Override
        public DeadLetter map(DeadLetter d) {
            if (d.source == null) {
                d.source =
                        DeadLetter.ERASED_BEYOND_STATE.equals(d.reason) && erasures != null
                                ? erasures
                                : source;
            }
            getRuntimeContext().getLongCounter(accumulator(d.flow, kind, d.reason)).add(1L);
            byReason.computeIfAbsent(d.flow + SEPARATOR + d.reason, k -> counter(d)).inc();
            rates.computeIfAbsent(d.flow, this::rate).markEvent();
            return d;
        }

        private Counter counter(DeadLetter d) {
            return flowGroup(d.flow)
                    .addGroup("reason", d.reason)
                    .counter(kind.equals(DEAD) ? DEAD_COUNTER : LATE_COUNTER);
        }

        private Meter rate(String flow) {
            return flowGroup(flow)
                    .meter(kind.equals(DEAD) ? DEAD_RATE : LATE_RATE, new MeterView(60));
        }

        private MetricGroup flowGroup(String flow) {
            return getRuntimeContext().getMetricGroup().addGroup("flow", flow);
        }
    }
}
