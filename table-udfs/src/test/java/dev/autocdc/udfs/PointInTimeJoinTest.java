package dev.autocdc.udfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The point-in-time join recipe (docs/sql-functions.md): facts joined to a type 2 history as of
 * each fact's own time, with a regular join on the key and VALID_AT on the fact's time. On the
 * references' users walkthrough: each order gets the city its user had when the order was placed.
 */
class PointInTimeJoinTest {
    static final Path DOCS =
            Path.of(System.getProperty("user.dir")).getParent().resolve("docs/sql-functions.md");

    @Test
    void eachOrderGetsTheAddressCurrentWhenItWasPlaced() throws Exception {
        TableEnvironment t = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        t.executeSql("CREATE FUNCTION VALID_AT AS 'dev.autocdc.udfs.ValidAt'");
        // the users table of the walkthrough as SCD type 2 (sequence numbers as business time)
        t.executeSql(
                "CREATE TEMPORARY VIEW users_history AS SELECT * FROM (VALUES (123, 'Isabel',"
                    + " 'Monterrey', 1, 5), (123, 'Isabel', 'Chihuahua', 5, 6), (124, 'Raul',"
                    + " 'Oaxaca', 1, CAST(NULL AS INT)), (125, 'Mercedes', 'Tijuana', 2, 5), (125,"
                    + " 'Mercedes', 'Mexicali', 5, 6), (125, 'Mercedes', 'Guadalajara', 6,"
                    + " CAST(NULL AS INT)), (126, 'Lily', 'Cancun', 2, CAST(NULL AS INT))) AS"
                    + " u(userId, name, city, __START_AT, __END_AT)");
        t.executeSql(
                "CREATE TEMPORARY VIEW orders AS SELECT * FROM (VALUES ('o1', 123, 2), ('o2', 123,"
                        + " 5), ('o3', 123, 7), ('o4', 125, 4), ('o5', 125, 6), ('o6', 126, 1)) AS"
                        + " o(orderId, userId, placedAt)");
        // the recipe as documented
        String join = DocSessions.statements(DOCS, "point-in-time-join").get(0);
        assertThat(AsOfTest.names(t, join))
                // o3: Isabel was deleted at 6; o6: Lily's history starts at 2
                .containsExactlyInAnyOrder(
                        "o1/Monterrey", "o2/Chihuahua", "o4/Tijuana", "o5/Guadalajara");
    }
}
