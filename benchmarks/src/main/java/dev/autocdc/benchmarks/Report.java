package dev.autocdc.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the raw runs (CSV: variant,backend,workload,events,millis,events_per_s,peak_rss_mb,first_fifth_per_s,
 * last_fifth_per_s) and prints
 * the Markdown table (median events/s with min-max, peak RSS, ratio to sql_dedup on the same backend and
 * workload) and one {@code figure <name> <value>} line per target figure; a figure whose runs are missing
 * prints {@code n/a}.
 */
public final class Report {

    private Report() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, List<double[]>> runs = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank() || line.startsWith("variant")) {
                continue;
            }
            String[] f = line.split(",");
            runs.computeIfAbsent(f[0] + "," + f[1] + "," + f[2], k -> new ArrayList<>())
                    .add(new double[] {Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                        f.length > 8 ? Double.parseDouble(f[8]) / Math.max(1, Double.parseDouble(f[7])) : Double.NaN});
        }
        System.out.println("| variant | backend | workload | events/s median (min-max) | peak RSS MB | / sql_dedup |");
        System.out.println("|---|---|---|---|---|---|");
        for (Map.Entry<String, List<double[]>> e : runs.entrySet()) {
            String[] k = e.getKey().split(",");
            List<Double> rates = new ArrayList<>();
            double rss = 0;
            for (double[] r : e.getValue()) {
                rates.add(r[0]);
                rss = Math.max(rss, r[1]);
            }
            Collections.sort(rates);
            Double base = median(runs, "sql_dedup", k[1], k[2]);
            System.out.printf("| %s | %s | %s | %,.0f (%,.0f-%,.0f) | %.0f | %s |%n", k[0], k[1], k[2], median(rates),
                    rates.get(0), rates.get(rates.size() - 1), rss, base == null ? "" : String.format("%.2f", median(rates) / base));
        }
        figure("scd1_over_sqldedup_w1", ratio(runs, "scd1", "W1", "sql_dedup", "W1"));
        figure("scd1_over_sqldedup_minibatch_w1", ratio(runs, "scd1", "W1", "sql_dedup_minibatch", "W1"));
        figure("scd2_over_sqldedup_w1", ratio(runs, "scd2", "W1", "sql_dedup", "W1"));
        figure("bitemporal_over_sqldedup_w4", ratio(runs, "bitemporal", "W4", "sql_dedup", "W4"));
        figure("scd2_over_naive_w2", ratio(runs, "scd2", "W2-1M", "naive_scd2", "W2-1M"));
        figure("scd2_w3_over_w1", ratio(runs, "scd2", "W3", "scd2", "W1"));
        figure("scd2_over_sqldedup_w5", ratio(runs, "scd2", "W5", "sql_dedup", "W5"));
        List<double[]> w2 = runs.get("scd2,rocksdb,W2");
        Double phases = null;
        if (w2 != null) {
            List<Double> ratios = new ArrayList<>();
            w2.forEach(r -> ratios.add(r[2]));
            Collections.sort(ratios);
            phases = median(ratios);
        }
        figure("scd2_w2_last_over_first", phases); // the rate over the last fifth of W2 over the first fifth
        figure("state_bytes_per_version_over_row_bytes", null); // needs a final checkpoint's size: not measured yet
    }

    private static Double ratio(Map<String, List<double[]>> runs, String v1, String w1, String v2, String w2) {
        Double a = median(runs, v1, "rocksdb", w1);
        Double b = median(runs, v2, "rocksdb", w2);
        return a == null || b == null ? null : a / b;
    }

    private static Double median(Map<String, List<double[]>> runs, String variant, String backend, String workload) {
        List<double[]> r = runs.get(variant + "," + backend + "," + workload);
        if (r == null) {
            return null;
        }
        List<Double> rates = new ArrayList<>();
        r.forEach(x -> rates.add(x[0]));
        Collections.sort(rates);
        return median(rates);
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static void figure(String name, Double value) {
        System.out.println("figure " + name + " " + (value == null ? "n/a" : String.format("%.3f", value)));
    }
}
