package dev.autocdc.cluster;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Samples of a Prometheus endpoint's text format: {@code name{label="value",...} number}. */
record PrometheusText(List<Sample> samples) {
    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LINE =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})? (\\S+)$");
    private static final Pattern LABEL =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static PrometheusText scrape(int port) throws Exception {
        String body =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(
                                                URI.create("http://localhost:" + port + "/metrics"))
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
        List<Sample> samples = new ArrayList<>();
        for (String line : body.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
        return new PrometheusText(samples);
    }

    /** The samples of a metric whose name ends with {@code suffix}, for one flow. */
    List<Sample> of(String suffix, String flow) {
        return samples.stream()
                .filter(s -> s.name().endsWith(suffix) && flow.equals(s.labels().get("flow")))
                .toList();
    }

    double sum(String suffix, String flow) {
        return of(suffix, flow).stream().mapToDouble(Sample::value).sum();
    }

    double max(String suffix, String flow) {
        return of(suffix, flow).stream().mapToDouble(Sample::value).max().orElse(Double.NaN);
    }
}
