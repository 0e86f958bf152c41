package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.gateway.SqlGateway;
import org.apache.flink.table.gateway.service.context.DefaultContext;
import org.apache.flink.table.gateway.service.session.SessionManager;

/**
 * A session cluster (a MiniCluster with its REST endpoint) and a Flink SQL Gateway submitting to
 * it, driven through the gateway's REST API as the SQL client in gateway mode drives it. For the
 * gateway tests ({@code *IT}).
 */
final class Gateway implements AutoCloseable {
    static final long DEADLINE_MILLIS = 120_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final MiniCluster cluster;
    private final SqlGateway gateway;
    private final String base;

    private Gateway(MiniCluster cluster, SqlGateway gateway, String base) {
        this.cluster = cluster;
        this.gateway = gateway;
        this.base = base;
    }

    /** Starts the cluster (8 slots) and the gateway (parallelism 1) on free ports. */
    static Gateway start() throws Exception {
        Configuration clusterConf = new Configuration();
        clusterConf.setString("rest.bind-port", "0");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(clusterConf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(8)
                                .build());
        cluster.start();
        URI rest = cluster.getRestAddress().get();
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Configuration conf = new Configuration();
        conf.setString("execution.target", "remote");
        conf.setString("rest.address", rest.getHost());
        conf.setString("rest.port", String.valueOf(rest.getPort()));
        conf.setString("parallelism.default", "1");
        conf.setString("sql-gateway.endpoint.type", "rest");
        conf.setString("sql-gateway.endpoint.rest.address", "localhost");
        conf.setString("sql-gateway.endpoint.rest.port", String.valueOf(port));
        SqlGateway gateway =
                new SqlGateway(conf, SessionManager.create(new DefaultContext(conf, List.of())));
        gateway.start();
        return new Gateway(cluster, gateway, "http://localhost:" + port + "/v1");
    }

    /** Opens a session; returns its handle. */
    String openSession() throws Exception {
        return post("/sessions", Map.of()).get("sessionHandle").asText();
    }

    /** Submits a statement; returns the URI of its first result page. */
    String submit(String session, String statement) throws Exception {
        String operation =
                post("/sessions/" + session + "/statements", Map.of("statement", statement))
                        .get("operationHandle")
                        .asText();
        return "/sessions/" + session + "/operations/" + operation + "/result/0?rowFormat=JSON";
    }

    /** Submits the statements in order; returns each one's first ready result page. */
    List<JsonNode> execute(String session, List<String> statements) throws Exception {
        List<JsonNode> pages = new ArrayList<>();
        for (String statement : statements) {
            JsonNode page = fetchUntilReady(submit(session, statement));
            assertThat(page.path("resultType").asText())
                    .as(statement + ": " + page)
                    .isNotEqualTo("NOT_READY");
            pages.add(page);
        }
        return pages;
    }

    /** The first field of a result page's first row. */
    static String firstField(JsonNode page) {
        return page.path("results").path("data").path(0).path("fields").path(0).asText();
    }

    /** The first page that is not NOT_READY; fails on an error the gateway reports. */
    JsonNode fetchUntilReady(String uri) throws Exception {
        long deadline = System.currentTimeMillis() + DEADLINE_MILLIS;
        while (true) {
            JsonNode page = get(uri);
            if (!"NOT_READY".equals(page.path("resultType").asText())
                    || System.currentTimeMillis() > deadline) {
                return page;
            }
            Thread.sleep(100);
        }
    }

    /**
     * Closes an operation: a query's job is cancelled, as leaving the client's result view does.
     */
    void close(String resultUri) throws Exception {
        String operation = resultUri.substring(0, resultUri.indexOf("/result/"));
        send(HttpRequest.newBuilder(URI.create(base + operation + "/close")).DELETE().build());
    }

    /** The names of the jobs the cluster has run or runs. */
    List<String> jobNames() throws Exception {
        List<String> names = new ArrayList<>();
        cluster.listJobs().get().forEach(j -> names.add(j.getJobName()));
        return names;
    }

    void cancel(String job) throws Exception {
        cluster.cancelJob(JobID.fromHexString(job)); // a job that finished already stays so
    }

    JsonNode get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET().build());
    }

    private JsonNode post(String path, Map<String, String> body) throws Exception {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(base + path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                        .build();
        return send(request);
    }

    private static JsonNode send(HttpRequest request) throws Exception {
        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new AssertionError(
                    request.method()
                            + " "
                            + request.uri()
                            + " -> "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }

    @Override
    public void close() throws Exception {
        gateway.stop();
        cluster.close();
    }
}
