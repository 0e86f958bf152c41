package dev.autocdc.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the raw runs (CSV:
 * variant,backend,workload,events,millis,events_per_s,peak_rss_mb,first_fifth_per_s,
 * last_fifth_per_s,state_bytes,versions,row_bytes[,alloc_bytes_per_event[,cpu_ns_per_event]]) and
 * prints the Markdown table (median events/s with min-max, peak RSS, state on disk after the last
 * event, bytes the keyed operator's thread allocated per event and the CPU time it used per event,
 * ratio to sql_dedup on the same backend and workload) and one {@code figure <name> <value>} line
 * per target figure; a figure whose runs are missing prints {@code n/a}. Each rate ratio of the
 * engine against {@code sql_dedup} also prints its CPU twin ({@code <figure>_cpu}: the baseline's
 * CPU time per event over the variant's), which steal from other processes on a shared machine
 * barely moves. With a second argument, writes an SVG bar chart of the medians there.
 */
public final class Report {

    private Report() {}

    /** The runs of one variant, backend and workload. */
    static final class Series {
        final String variant;
        final String backend;
        final String workload;
        final List<Double> rates = new ArrayList<>();
        final List<Double> phaseRatios = new ArrayList<>();
        final List<Double> allocations = new ArrayList<>();
        final List<Double> cpuNanos = new ArrayList<>();
        double rssMb;
        long stateBytes = -1;
        long versions;
        long rowBytes;

        Series(String variant, String backend, String workload) {
            this.variant = variant;
            this.backend = backend;
            this.workload = workload;
        }

        double median() {
            return Report.median(rates);
        }

        String label() {
            return variant + " " + backend + " " + workload;
        }
    }

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        Map<String, Series> runs = read(Path.of(args[0]));
        printTable(runs);
        printFigures(runs);
        if (args.length > 1) {
            Files.writeString(Path.of(args[1]), chart(runs));
        }
    }

    /**
     * The Markdown table: a row per variant, backend and workload, in the order of the raw runs;
     * the ratio to {@code sql_dedup} on the same backend and workload where it ran (none for the
     * {@code kafka_} variants).
     */
    private static void printTable(Map<String, Series> runs) {
        System.out.println(
                "| variant | backend | workload | events/s median (min-max) | peak RSS MB | state"
                        + " on disk MB | bytes allocated / event | CPU ns / event | / sql_dedup |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (Series s : runs.values()) {
            List<Double> sorted = new ArrayList<>(s.rates);
            Collections.sort(sorted);
            Series base =
                    s.variant.startsWith("kafka_")
                            ? null
                            : runs.get("sql_dedup," + s.backend + "," + s.workload);
            System.out.printf(
                    "| %s | %s | %s | %,.0f (%,.0f-%,.0f) | %.0f | %s | %s | %s | %s |%n",
                    s.variant,
                    s.backend,
                    s.workload,
                    s.median(),
                    sorted.get(0),
                    sorted.get(sorted.size() - 1),
                    s.rssMb,
                    s.stateBytes < 0 ? "" : String.format("%.1f", s.stateBytes / 1e6),
                    s.allocations.isEmpty() ? "" : String.format("%,.0f", median(s.allocations)),
                    s.cpuNanos.isEmpty() ? "" : String.format("%,.0f", median(s.cpuNanos)),
                    base == null ? "" : String.format("%.2f", s.median() / base.median()));
        }
    }

    /** The target figures, a {@code figure <name> <value>} line each. */
    private static void printFigures(Map<String, Series> runs) {
        pair("scd1_over_sqldedup_w1", runs, "scd1,rocksdb,W1", "sql_dedup,rocksdb,W1");
        figure(
                "scd1_over_sqldedup_minibatch_w1",
                ratio(runs, "scd1", "W1", "sql_dedup_minibatch", "W1"));
        pair("scd2_over_sqldedup_w1", runs, "scd2,rocksdb,W1", "sql_dedup,rocksdb,W1");
        pair("scd2_over_sqldedup_hashmap_w1", runs, "scd2,hashmap,W1", "sql_dedup,hashmap,W1");
        pair("bitemporal_over_sqldedup_w4", runs, "bitemporal,rocksdb,W4", "sql_dedup,rocksdb,W4");
        // W7's hot keys: the default cache against deduplication; a cache capped at a tenth of the
        // keys (run.sh), which still holds the hot ones, against the default
        pair("scd2_over_sqldedup_w7", runs, "scd2,rocksdb,W7", "sql_dedup,rocksdb,W7");
        pair("scd2_cached_over_scd2_w7", runs, "scd2_cached,rocksdb,W7", "scd2,rocksdb,W7");
        Series w2 = runs.get("scd2,rocksdb,W2");
        figure("scd2_w2_last_over_first", w2 == null ? null : median(w2.phaseRatios));
        figure("scd2_over_naive_w2", ratio(runs, "scd2", "W2-1M", "naive_scd2", "W2-1M"));
        pair("scd2_w3_over_w1", runs, "scd2,rocksdb,W3", "scd2,rocksdb,W1");
        Series w1 = runs.get("scd2,rocksdb,W1");
        figure(
                "state_bytes_per_version_over_row_bytes",
                w1 == null || w1.stateBytes < 0 || w1.versions == 0
                        ? null
                        : (double) w1.stateBytes / w1.versions / w1.rowBytes);
        figure(
                "scd2_kafka_over_kafka_passthrough",
                ratio(runs, "kafka_scd2", "W1", "kafka_passthrough", "W1"));
        figure(
                "scd2_kafka_over_kafka_passthrough_double",
                ratio(runs, "kafka_scd2", "W1", "kafka_passthrough_double", "W1"));
        figure("scd2_over_sqldedup_w5", ratio(runs, "scd2", "W5", "sql_dedup", "W5"));
        pair(
                "snapshot_scd2_over_sqldedup_w6",
                runs,
                "snapshot_scd2,rocksdb,W6",
                "sql_dedup,rocksdb,W6");
        figure(
                "flow_decoding_over_flink_decoding_kafka",
                ratio(runs, "kafka_scd2", "W1", "kafka_scd2_flink_decoding", "W1"));
        for (String variant : List.of("scd1", "scd2", "bitemporal", "snapshot_scd2")) {
            for (String workload : List.of("W1", "W3", "W4", "W6")) {
                Series a = runs.get(variant + ",rocksdb," + workload);
                if (a != null && !a.allocations.isEmpty()) {
                    figure(
                            "alloc_bytes_per_event_" + variant + "_" + workload.toLowerCase(),
                            median(a.allocations));
                }
            }
        }
    }

    /**
     * A ratio of median rates, {@code variant} over {@code baseline} (keys:
     * variant,backend,workload), and its CPU twin {@code <name>_cpu}: the baseline's median CPU
     * time per event over the variant's, so that, as for rates, above 1 means the variant is
     * cheaper; n/a without both.
     */
    private static void pair(
            String name, Map<String, Series> runs, String variant, String baseline) {
        Series v = runs.get(variant);
        Series b = runs.get(baseline);
        figure(name, v == null || b == null ? null : v.median() / b.median());
        figure(
                name + "_cpu",
                v == null || b == null || v.cpuNanos.isEmpty() || b.cpuNanos.isEmpty()
                        ? null
                        : median(b.cpuNanos) / median(v.cpuNanos));
    }

    static Map<String, Series> read(Path csv) throws IOException {
        Map<String, Series> runs = new LinkedHashMap<>();
        for (String line : Files.readAllLines(csv)) {
            if (line.isBlank() || line.startsWith("variant")) {
                continue;
            }
            String[] f = line.split(",");
            Series s =
                    runs.computeIfAbsent(
                            f[0] + "," + f[1] + "," + f[2], k -> new Series(f[0], f[1], f[2]));
            s.rates.add(Double.parseDouble(f[5]));
            s.rssMb = Math.max(s.rssMb, Double.parseDouble(f[6]));
            double first = Double.parseDouble(f[7]);
            if (first > 0) {
                s.phaseRatios.add(Double.parseDouble(f[8]) / first);
            }
            // the state of the last run (sizes barely move between runs)
            s.stateBytes = Long.parseLong(f[9]);
            s.versions = Long.parseLong(f[10]);
            s.rowBytes = Long.parseLong(f[11]);
            if (f.length > 12 && Long.parseLong(f[12]) >= 0) { // runs before it was measured: none
                s.allocations.add(Double.parseDouble(f[12]));
            }
            if (f.length > 13 && Long.parseLong(f[13]) > 0) {
                s.cpuNanos.add(Double.parseDouble(f[13]));
            }
        }
        return runs;
    }

    /**
     * Horizontal bars: median events/s per variant, backend and workload, with the min-max range.
     */
    static String chart(Map<String, Series> runs) {
        double max = 1;
        for (Series s : runs.values()) {
            max = Math.max(max, Collections.max(s.rates));
        }
        int rowHeight = 22;
        int labelWidth = 260;
        int barWidth = 560;
        int height = 40 + rowHeight * runs.size() + 30;
        StringBuilder svg = new StringBuilder();
        svg.append(
                String.format(
                        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                                + " font-family=\"sans-serif\" font-size=\"12\">%n",
                        labelWidth + barWidth + 120, height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(
                "<text x=\"10\" y=\"20\" font-size=\"14\">Events per second, median of the runs"
                        + " (line: min-max), parallelism 1</text>\n");
        int y = 40;
        for (Series s : runs.values()) {
            double w = s.median() / max * barWidth;
            double lo = Collections.min(s.rates) / max * barWidth;
            double hi = Collections.max(s.rates) / max * barWidth;
            boolean ours =
                    s.variant.startsWith("scd")
                            || s.variant.equals("bitemporal")
                            || s.variant.startsWith("kafka_scd2");
            svg.append(
                    String.format(
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                            labelWidth - 6, y + 15, escape(s.label())));
            svg.append(
                    String.format(
                            "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                            labelWidth, y + 3, w, rowHeight - 6, ours ? "#2b7bb9" : "#9a9a9a"));
            svg.append(
                    String.format(
                            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\""
                                    + " stroke=\"black\"/>%n",
                            labelWidth + lo,
                            labelWidth + hi,
                            y + rowHeight / 2,
                            y + rowHeight / 2));
            svg.append(
                    String.format(
                            "<text x=\"%.1f\" y=\"%d\">%,.0f</text>%n",
                            labelWidth + Math.max(w, hi) + 6, y + 15, s.median()));
            y += rowHeight;
        }
        svg.append(
                String.format(
                        "<text x=\"10\" y=\"%d\" fill=\"#555\">blue: this engine; grey: baselines"
                                + " (passthrough, Flink SQL deduplication, hand-written SCD2, Kafka"
                                + " without state)</text>%n",
                        y + 20));
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;");
    }

    private static Double ratio(
            Map<String, Series> runs, String v1, String w1, String v2, String w2) {
        Series a = runs.get(v1 + ",rocksdb," + w1);
        Series b = runs.get(v2 + ",rocksdb," + w2);
        return a == null || b == null ? null : a.median() / b.median();
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static void figure(String name, Double value) {
        System.out.println(
                "figure "
                        + name
                        + " "
                        + (value == null || value.isNaN() ? "n/a" : String.format("%.3f", value)));
    }
}
