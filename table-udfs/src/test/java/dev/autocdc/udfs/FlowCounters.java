package dev.autocdc.udfs;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for tests that keeps every counter registered under a {@code flow} group, as a
 * job's reporter would see it. Flink finds the factory as a service (test resources,
 * META-INF/services); {@link #reportingTo} turns it on for a local session.
 */
public final class FlowCounters implements MetricReporter, MetricReporterFactory {
    /** A counter of a flow: its name, its flow's name, the counter. */
    record Registered(String name, String flow, Counter counter) {}

    private static final List<Registered> COUNTERS = new CopyOnWriteArrayList<>();

    /** A configuration whose local cluster reports to this class. */
    static Configuration reportingTo() {
        Configuration conf = new Configuration();
        MetricOptions.forReporter(conf, "flow_counters")
                .set(MetricOptions.REPORTER_FACTORY_CLASS, FlowCounters.class.getName());
        return conf;
    }

    /** The sum over operators and subtasks of the counter {@code name} of flow {@code flow}. */
    static long sum(String flow, String name) {
        return COUNTERS.stream()
                .filter(r -> r.name().equals(name) && flow.equals(r.flow()))
                .mapToLong(r -> r.counter().getCount())
                .sum();
    }

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new FlowCounters();
    }

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        Map<String, String> variables = group.getAllVariables();
        if (metric instanceof Counter c && variables.containsKey("<flow>")) {
            COUNTERS.add(new Registered(name, variables.get("<flow>"), c));
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {}
}
