package dev.autocdc.job.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.autocdc.operators.core.AutoCdcFlow;
import dev.autocdc.operators.core.TargetType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The flow language: the AUTO CDC statements as the references write them, and their errors. */
class FlowScriptTest {

    @Test
    void aTargetsPartitionColumnsAreRead() {
        FlowScript script =
                FlowScript.parse(
                        "CREATE OR REFRESH STREAMING TABLE lake.hr.users (userId INT, region"
                                + " STRING)\n  PARTITIONED BY (region, `userId`) WITH ('bucket' ="
                                + " '1');");
        assertThat(script.targets())
                .containsExactly(
                        new FlowScript.TargetTable(
                                "lake.hr.users",
                                "userId INT, region STRING",
                                "'bucket' = '1'",
                                List.of("region", "userId"),
                                1));
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE OR REFRESH STREAMING TABLE t PARTITIONED BY ();"))
                .hasMessage("line 1, PARTITIONED BY: name one or more columns");
        for (String list : List.of("(a b)", "(a,,b)", "(,a)", "(a,)")) {
            assertThatThrownBy(
                            () ->
                                    FlowScript.parse(
                                            "CREATE OR REFRESH STREAMING TABLE t PARTITIONED BY "
                                                    + list
                                                    + ";"))
                    .as(list)
                    .hasMessageContaining("PARTITIONED BY: unexpected");
        }
    }

    @Test
    void readsTheUsersFlowOfTheReference() {
        FlowScript script =
                FlowScript.parse(
                        """
                        CREATE OR REFRESH STREAMING TABLE users_history;

                        CREATE FLOW apply_cdc AS AUTO CDC INTO
                          users_history
                        FROM
                          stream(main.cdc_tutorial.users_cdf)
                        KEYS
                          (userId)
                        APPLY AS DELETE WHEN
                          operation = "DELETE"
                        SEQUENCE BY
                          sequenceNum
                        COLUMNS * EXCEPT
                          (operation, sequenceNum)
                        STORED AS
                          SCD TYPE 2;
                        """);
        assertThat(script.targets())
                .containsExactly(new FlowScript.TargetTable("users_history", null, null, 1));
        AutoCdcFlow flow = script.flows().get(0);
        assertThat(flow)
                .isEqualTo(
                        AutoCdcFlow.builder("users_history", "main.cdc_tutorial.users_cdf")
                                .name("apply_cdc")
                                .keys("userId")
                                .applyAsDeletes("operation = 'DELETE'")
                                .sequenceBy("sequenceNum")
                                .exceptColumnList(List.of("operation", "sequenceNum"))
                                .storedAsScdType(2)
                                .build());
        assertThat(flow.line()).isEqualTo(3);
    }

    @Test
    void readsTheBitemporalFlowAndEveryClause() {
        FlowScript script =
                FlowScript.parse(
                        """
                        -- sources are ordinary Flink SQL
                        CREATE TABLE employees_cdf (employeeId INT, name STRING) WITH ('connector' = 'datagen');
                        create or refresh streaming table employees_bitemporal;
                        create flow apply_cdc as auto cdc into employees_bitemporal
                        from stream(employees_cdf)
                        keys (employeeId)
                        apply as delete when operation = 'DELETE' AND note <> "it's"
                        apply as truncate when op = 'T'
                        sequence by struct(effectiveDate, seqNo)
                        system sequence by recordedAt
                        columns * except (operation)
                        ignore null updates on * except (note)
                        stored as bitemporal
                        track history on * except (note);
                        """);
        assertThat(script.items()).hasSize(3);
        assertThat(script.items().get(0)).isInstanceOf(FlowScript.SqlStatement.class);
        assertThat(script.items().get(0).line()).isEqualTo(2);
        AutoCdcFlow flow = script.flows().get(0);
        assertThat(flow.applyAsDeletes()).isEqualTo("operation = 'DELETE' AND note <> 'it''s'");
        assertThat(flow.applyAsTruncates()).isEqualTo("op = 'T'");
        assertThat(flow.sequenceBy()).containsExactly("effectiveDate", "seqNo");
        assertThat(flow.sequenceIsStruct()).isTrue();
        assertThat(flow.systemSequenceBy()).isEqualTo("recordedAt");
        assertThat(flow.storedAs()).isEqualTo(TargetType.BITEMPORAL);
        assertThat(flow.ignoreNullUpdatesExceptColumnList()).containsExactly("note");
        assertThat(flow.trackHistoryExceptColumnList()).containsExactly("note");
        assertThat(flow.line()).isEqualTo(4);
    }

    @Test
    void readsColumnListsTrackHistoryColumnsToUpdateAndTargetsWithConnectors() {
        FlowScript script =
                FlowScript.parse(
                        """
                        CREATE OR REFRESH STREAMING TABLE target (id INT, a STRING) WITH ('connector' = 'print');
                        CREATE FLOW f AS AUTO CDC INTO target FROM src KEYS (id, `part id`) SEQUENCE BY seq
                        COLUMNS (id, a, `part id`) COLUMNS TO UPDATE columnsToUpdate STORED AS SCD TYPE 2 TRACK HISTORY ON (a);
                        CREATE FLOW g AS AUTO CDC INTO t2 FROM src KEYS (id) SEQUENCE BY seq IGNORE NULL UPDATES ON (a, b);
                        CREATE FLOW h AS AUTO CDC INTO t3 FROM src KEYS (id) SEQUENCE BY seq IGNORE NULL UPDATES;
                        """);
        FlowScript.TargetTable target = script.targets().get(0);
        assertThat(target.columns()).isEqualTo("id INT, a STRING");
        assertThat(target.options()).isEqualTo("'connector' = 'print'");
        AutoCdcFlow f = script.flows().get(0);
        assertThat(f.keys()).containsExactly("id", "part id");
        assertThat(f.columnList()).containsExactly("id", "a", "part id");
        assertThat(f.columnsToUpdate()).isEqualTo("columnsToUpdate");
        assertThat(f.trackHistoryColumnList()).containsExactly("a");
        assertThat(script.flows().get(1).ignoreNullUpdatesColumnList()).containsExactly("a", "b");
        assertThat(script.flows().get(1).storedAs()).as("the default").isEqualTo(TargetType.SCD1);
        assertThat(script.flows().get(2).ignoreNullUpdates()).isTrue();
    }

    @Test
    void semicolonsInsideLiteralsAndCommentsDoNotSplit() {
        List<ScriptSplitter.Statement> s =
                ScriptSplitter.split("SET 'a' = 'x;y';\n/* ; */ -- ;\nSELECT \"a;b\", `c;d`;;\n");
        assertThat(s).extracting(ScriptSplitter.Statement::line).containsExactly(1, 3);
        assertThat(s.get(0).text()).isEqualTo("SET 'a' = 'x;y'");
    }

    @Test
    void errorsNameTheLineTheClauseAndTheFix() {
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "\n\n"
                                                + "CREATE FLOW f AS AUTO CDC INTO t FROM s SEQUENCE"
                                                + " BY x;"))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessage("line 3, KEYS: flow f needs KEYS (col, ...)");
        assertThatThrownBy(
                        () -> FlowScript.parse("CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k);"))
                .hasMessageContaining("SEQUENCE BY: flow f needs SEQUENCE BY");
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k)\n"
                                                + "SEQUENCE BY x\n"
                                                + "KEYS (j);"))
                .hasMessage("line 3, KEYS: the clause is given twice; keep one");
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE"
                                                + " BY x STORED AS SCD TYPE 3;"))
                .hasMessageContaining("STORED AS: SCD TYPE must be 1 or 2, not 3");
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE"
                                                + " BY x\n"
                                                + "  WHATEVER;"))
                .hasMessageStartingWith("line 2, AUTO CDC: unexpected 'WHATEVER'");
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k SEQUENCE"
                                                + " BY x;"))
                .hasMessageContaining("KEYS: expected ',' or ')'");
        assertThatThrownBy(() -> FlowScript.parse("CREATE FLOW f AS INSERT INTO t SELECT 1;"))
                .hasMessageContaining("only AUTO CDC flows are supported");
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE FLOW f AS AUTO CDC INTO t FROM s KEYS (k) SEQUENCE"
                                            + " BY x APPLY AS DELETE WHEN STORED AS SCD TYPE 1;"))
                .hasMessageContaining("APPLY AS DELETE WHEN: needs a boolean expression");
    }

    @Test
    void readsAFlowFromSnapshots() {
        AutoCdcFlow flow =
                FlowScript.parse(
                                """
                                CREATE OR REFRESH STREAMING TABLE employees;
                                CREATE FLOW nightly AS AUTO CDC INTO employees
                                FROM SNAPSHOT(employee_exports)
                                KEYS (employeeId)
                                SEQUENCE BY snapshotDate
                                SYSTEM SEQUENCE BY takenAt
                                APPLY AS SNAPSHOT END WHEN kind = 'END'
                                COLUMNS * EXCEPT (kind)
                                STORED AS BITEMPORAL;
                                """)
                        .flows()
                        .get(0);
        assertThat(flow)
                .isEqualTo(
                        AutoCdcFlow.fromSnapshot("employees", "employee_exports")
                                .name("nightly")
                                .keys("employeeId")
                                .sequenceBy("snapshotDate")
                                .systemSequenceBy("takenAt")
                                .applyAsSnapshotEnd("kind = 'END'")
                                .exceptColumnList(List.of("kind"))
                                .storedAs(TargetType.BITEMPORAL)
                                .build());
        assertThat(flow.fromSnapshot()).isTrue();
        assertThat(flow)
                .isNotEqualTo(
                        AutoCdcFlow.builder("employees", "employee_exports")
                                .name("nightly")
                                .keys("employeeId")
                                .sequenceBy("snapshotDate")
                                .systemSequenceBy("takenAt")
                                .exceptColumnList(List.of("kind"))
                                .storedAs(TargetType.BITEMPORAL)
                                .build());
    }

    @Test
    void aFlowFromSnapshotsRefusesTheClausesOfChangesNamingThem() {
        String head =
                "CREATE OR REFRESH STREAMING TABLE t;\n"
                        + "CREATE FLOW f AS AUTO CDC INTO t FROM SNAPSHOT(s) KEYS (id)"
                        + " SEQUENCE BY day\n";
        for (String clause :
                List.of(
                        "APPLY AS DELETE WHEN op = 'D'",
                        "APPLY AS TRUNCATE WHEN op = 'T'",
                        "IGNORE NULL UPDATES",
                        "COLUMNS TO UPDATE cols")) {
            String name = clause.replaceAll(" (WHEN|cols).*", " $1").replace(" cols", "").trim();
            assertThatThrownBy(() -> FlowScript.parse(head + clause + ";"))
                    .isInstanceOf(FlowSyntaxException.class)
                    // the clause's line, not the statement's
                    .hasMessageContaining("line 3")
                    .hasMessageContaining(name)
                    .hasMessageContaining(
                            "remove the clause, or read a change feed with FROM" + " STREAM(s)");
        }
        assertThatThrownBy(
                        () ->
                                FlowScript.parse(
                                        "CREATE OR REFRESH STREAMING TABLE t;\nCREATE FLOW f AS"
                                                + " AUTO CDC INTO t FROM STREAM(s) KEYS (id)"
                                                + " SEQUENCE BY day APPLY AS SNAPSHOT END WHEN"
                                                + " e;"))
                .isInstanceOf(FlowSyntaxException.class)
                .hasMessageContaining("APPLY AS SNAPSHOT END WHEN")
                .hasMessageContaining("write FROM SNAPSHOT(s)");
    }

    @Test
    void theJavaBuilderTakesStoredAsScdTypeAsIntOrString() {
        assertThat(
                        AutoCdcFlow.builder("t", "s")
                                .keys("k")
                                .sequenceBy("x")
                                .storedAsScdType(2)
                                .build()
                                .storedAs())
                .isEqualTo(TargetType.SCD2);
        assertThat(
                        AutoCdcFlow.builder("t", "s")
                                .keys("k")
                                .sequenceBy("x")
                                .storedAsScdType("bitemporal")
                                .build()
                                .storedAs())
                .isEqualTo(TargetType.BITEMPORAL);
        assertThatThrownBy(() -> AutoCdcFlow.builder("t", "s").storedAsScdType(3))
                .hasMessageContaining("stored_as_scd_type must be 1, 2 or \"bitemporal\"");
    }

    /** The legacy spelling the references say AUTO CDC replaces (issue 13, item 13). */
    @Test
    void applyChangesIntoIsTheSameStatement() {
        String clauses =
                " FROM STREAM(users_cdf) KEYS (userId) APPLY AS DELETE WHEN operation = 'DELETE'"
                        + " SEQUENCE BY sequenceNum STORED AS SCD TYPE 2;";
        AutoCdcFlow modern =
                ((FlowScript.FlowItem)
                                FlowScript.parse("CREATE FLOW f AS AUTO CDC INTO users" + clauses)
                                        .items()
                                        .get(0))
                        .flow();
        AutoCdcFlow legacy =
                ((FlowScript.FlowItem)
                                FlowScript.parse(
                                                "CREATE FLOW f AS APPLY CHANGES INTO users"
                                                        + clauses)
                                        .items()
                                        .get(0))
                        .flow();
        AutoCdcFlow bare =
                ((FlowScript.FlowItem)
                                FlowScript.parse("APPLY CHANGES INTO users" + clauses)
                                        .items()
                                        .get(0))
                        .flow();
        assertThat(legacy.toString()).isEqualTo(modern.toString());
        assertThat(bare.name()).isEqualTo("users");
        assertThat(bare.target()).isEqualTo("users");
        assertThat(bare.keys()).containsExactly("userId");
        assertThat(bare.storedAs()).isEqualTo(modern.storedAs());
    }
}
