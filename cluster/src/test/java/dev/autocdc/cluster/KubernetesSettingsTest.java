package dev.autocdc.cluster;

import static dev.autocdc.cluster.K8sManifests.configMapData;
import static dev.autocdc.cluster.K8sManifests.flinkDeployments;
import static dev.autocdc.cluster.K8sManifests.mainContainer;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.util.TimeUtils;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What the manifests in {@code k8s/} set for a deployment beyond starting it, checked offline:
 * object storage without credentials in the Flink configuration, Kafka over TLS with a CA every pod
 * has, recovery settings that fit the exactly-once sinks' transaction timeout, RocksDB on a local
 * volume.
 */
class KubernetesSettingsTest {
    private static final Pattern OPTION = Pattern.compile("'([\\w.-]+)'\\s*=\\s*'((?:[^']|'')*)'");
    private static final Pattern TABLE_NAME =
            Pattern.compile("^CREATE (?:OR REFRESH STREAMING )?TABLE (\\w+)");

    /**
     * A table the job writes besides its targets: {@code SET 'autocdc.<flow>.<kind>-table' = 't'}.
     */
    private static final Pattern LETTER_TABLE =
            Pattern.compile("SET 'autocdc\\.\\w+\\.[\\w-]+-table' = '(\\w+)'");

    @Test
    void everyKafkaTableOverTlsTrustsACaThatEveryPodMounts() throws Exception {
        List<Map<String, String>> tables =
                kafkaTables(configMapData("autocdc-flows", "employees.sql"));
        assertThat(tables).hasSize(3);
        for (Map<String, String> t : tables) {
            assertThat(t.get("properties.security.protocol")).isEqualTo("SASL_SSL");
            // a PEM file: no truststore password to hand over
            assertThat(t.get("properties.ssl.truststore.type")).isEqualTo("PEM");
            String location = t.get("properties.ssl.truststore.location");
            assertThat(location).as(t.get("topic")).isNotNull();
            // the application's pods and the session cluster's (whose jobs read the same flow)
            for (JsonNode deployment : flinkDeployments()) {
                String name = deployment.path("metadata").path("name").asString();
                Map.Entry<String, String> mount =
                        K8sManifests.mounts(deployment).entrySet().stream()
                                .filter(m -> location.startsWith(m.getKey() + "/"))
                                .findFirst()
                                .orElseThrow(
                                        () -> new AssertionError(name + " mounts no " + location));
                JsonNode secret = K8sManifests.volume(deployment, mount.getValue()).path("secret");
                List<String> paths = new ArrayList<>();
                for (JsonNode item : secret.path("items")) {
                    paths.add(item.path("path").asString());
                }
                assertThat(paths)
                        .as(name + ": the Secret's files")
                        .contains(location.substring(mount.getKey().length() + 1));
            }
        }
    }

    @Test
    void storageCredentialsAreOptionalSecretReferencesNeverConfiguration() throws Exception {
        Map<String, JsonNode> secrets = K8sManifests.secrets();
        for (JsonNode deployment : flinkDeployments()) {
            String name = deployment.path("metadata").path("name").asString();
            JsonNode conf = deployment.path("spec").path("flinkConfiguration");
            List<String> paths = new ArrayList<>();
            for (String key : conf.propertyNames()) {
                // the custom resource, and the ConfigMap the operator writes from it, are readable
                // by whoever may read the deployment
                assertThat(key)
                        .as(name)
                        .doesNotContainIgnoringCase("secret")
                        .doesNotContainIgnoringCase("access-key")
                        .doesNotContainIgnoringCase("password");
                if (conf.path(key).asString().startsWith("s3://")) {
                    paths.add(key);
                }
            }
            assertThat(paths).as(name + ": checkpoints, savepoints, HA data on S3").hasSize(3);
            Map<String, JsonNode> refs = new HashMap<>();
            for (JsonNode env : mainContainer(deployment).path("env")) {
                refs.put(env.path("name").asString(), env.path("valueFrom").path("secretKeyRef"));
            }
            for (String variable : List.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")) {
                JsonNode ref = refs.get(variable);
                assertThat(ref).as(name + ": " + variable).isNotNull();
                // optional: with IRSA or Workload Identity there is no such Secret
                assertThat(ref.path("optional").asBoolean(false)).as(variable).isTrue();
                assertThat(secrets).containsKey(ref.path("name").asString());
            }
        }
    }

    /**
     * Kafka's default {@code transaction.max.timeout.ms}: a broker refuses a producer whose {@code
     * transaction.timeout.ms} is larger, unless it is raised (docs/deploy.md).
     */
    static final Duration BROKER_DEFAULT_MAX = Duration.ofMinutes(15);

    /** What a recovery needs besides noticing the failure and waiting: a new pod, the state. */
    static final Duration NEW_POD_AND_RESTORE = Duration.ofMinutes(5);

    @Test
    void aRecoveryEndsBeforeTheBrokersAbortTheLastCheckpointsTransactions() throws Exception {
        List<Duration> timeouts = new ArrayList<>();
        for (Map<String, String> t : kafkaTables(configMapData("autocdc-flows", "employees.sql"))) {
            if ("exactly-once".equals(t.get("sink.delivery-guarantee"))) {
                timeouts.add(
                        Duration.ofMillis(
                                Long.parseLong(t.get("properties.transaction.timeout.ms"))));
            }
        }
        assertThat(timeouts).as("exactly-once sinks").isNotEmpty();
        for (Duration timeout : timeouts) {
            assertThat(timeout).isLessThanOrEqualTo(BROKER_DEFAULT_MAX);
            for (JsonNode deployment : flinkDeployments()) {
                JsonNode conf = deployment.path("spec").path("flinkConfiguration");
                assertThat(conf.path("restart-strategy.type").asString())
                        .isEqualTo("exponential-delay");
                // the transaction a recovery commits began up to an interval and a checkpoint
                // before the failure; then the failure is noticed and the restart delayed
                Duration left =
                        timeout.minus(duration(conf, "execution.checkpointing.interval"))
                                .minus(duration(conf, "execution.checkpointing.timeout"))
                                .minus(duration(conf, "heartbeat.timeout"))
                                .minus(
                                        duration(
                                                conf,
                                                "restart-strategy.exponential-delay.max-backoff"));
                assertThat(left)
                        .as(deployment.path("metadata").path("name").asString())
                        .isGreaterThanOrEqualTo(NEW_POD_AND_RESTORE);
            }
        }
    }

    /**
     * Every Kafka table the job writes, the target and the dead letters alike, is exactly once: an
     * at-least-once topic gets the rows or letters of the input a failover replays a second time
     * (issue 40: 24 letters for 20 bad records after TaskManager kills). Each has a
     * transactional-id prefix of its own: sinks that share one fence each other's producers.
     */
    @Test
    void everyKafkaTableTheJobWritesIsExactlyOnceWithAPrefixOfItsOwn() throws Exception {
        String flow = configMapData("autocdc-flows", "employees.sql");
        Map<String, Map<String, String>> tables = kafkaTablesByName(flow);
        List<String> written = new ArrayList<>();
        for (Matcher m = LETTER_TABLE.matcher(flow); m.find(); ) {
            written.add(m.group(1));
        }
        assertThat(written).as("letter tables").contains("employees_dead_letters");
        for (String name : tables.keySet()) {
            if (flow.contains("CREATE OR REFRESH STREAMING TABLE " + name + "\n")) {
                written.add(name);
            }
        }
        assertThat(written).as("the target").contains("employees_bitemporal");
        Map<String, String> prefixes = new HashMap<>();
        for (String name : written) {
            Map<String, String> t = tables.get(name);
            assertThat(t).as(name + " is a Kafka table").isNotNull();
            assertThat(t.get("sink.delivery-guarantee")).as(name).isEqualTo("exactly-once");
            String prefix = t.get("sink.transactional-id-prefix");
            assertThat(prefix).as(name).isNotBlank();
            assertThat(prefixes.put(prefix, name)).as(name + "'s prefix " + prefix).isNull();
            assertThat(t.get("properties.transaction.timeout.ms")).as(name).isNotNull();
        }
    }

    @Test
    void rocksDbAndTemporaryFilesAreOnALocalVolumeTheTaskManagerRequests() throws Exception {
        for (JsonNode deployment : flinkDeployments()) {
            String name = deployment.path("metadata").path("name").asString();
            JsonNode conf = deployment.path("spec").path("flinkConfiguration");
            Map<String, String> mounts = K8sManifests.mounts(deployment);
            for (String key : List.of("state.backend.rocksdb.localdir", "io.tmp.dirs")) {
                String path = conf.path(key).asString();
                String volume =
                        mounts.entrySet().stream()
                                .filter(m -> path.startsWith(m.getKey() + "/"))
                                .map(Map.Entry::getValue)
                                .findFirst()
                                .orElseThrow(() -> new AssertionError(name + ": " + key));
                assertThat(K8sManifests.volume(deployment, volume).has("emptyDir"))
                        .as(name + ": " + key + " on an emptyDir")
                        .isTrue();
            }
            assertThat(
                            deployment
                                    .path("spec")
                                    .path("taskManager")
                                    .path("resource")
                                    .path("ephemeralStorage")
                                    .asString())
                    .as(name)
                    .matches("\\d+Gi");
        }
    }

    private static Duration duration(JsonNode conf, String key) {
        assertThat(conf.has(key)).as(key).isTrue();
        return TimeUtils.parseDuration(conf.path(key).asString());
    }

    /** The options of each Kafka table the flow declares. */
    static List<Map<String, String>> kafkaTables(String flow) {
        return new ArrayList<>(kafkaTablesByName(flow).values());
    }

    /** The options of each Kafka table the flow declares, by the table's name. */
    static Map<String, Map<String, String>> kafkaTablesByName(String flow) {
        Map<String, Map<String, String>> tables = new LinkedHashMap<>();
        for (String statement : flow.split("(?m)^(?=CREATE )")) {
            Map<String, String> options = new HashMap<>();
            for (Matcher m = OPTION.matcher(statement); m.find(); ) {
                options.put(m.group(1), m.group(2).replace("''", "'"));
            }
            Matcher name = TABLE_NAME.matcher(statement);
            if (String.valueOf(options.get("connector")).contains("kafka") && name.find()) {
                tables.put(name.group(1), options);
            }
        }
        return tables;
    }
}
