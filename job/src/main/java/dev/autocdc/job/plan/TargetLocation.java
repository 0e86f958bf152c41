package dev.autocdc.job.plan;

import dev.autocdc.job.flow.FlowScript;
import dev.autocdc.job.flow.FlowSyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.CatalogManager;
import org.apache.flink.table.catalog.ObjectIdentifier;

/**
 * Where a target lives must exist before the flow is planned: the catalog its name starts with,
 * and, in a catalog that makes its own tables (Paimon, Iceberg), the database. Otherwise a typo in
 * the name ({@code lak.hr.users} for {@code lake.hr.users}) would plan a target that no sink
 * writes. The refusal names what is missing and lists what exists. A database of a catalog whose
 * targets are temporary tables (the session's own) is not checked: a temporary table needs none.
 */
final class TargetLocation {
    private static final String CLAUSE = "CREATE OR REFRESH STREAMING TABLE";

    private TargetLocation() {}

    static void check(
            StreamTableEnvironment tEnv, FlowScript.TargetTable target, ObjectIdentifier id) {
        CatalogManager catalogs = ((TableEnvironmentInternal) tEnv).getCatalogManager();
        Optional<Catalog> catalog = catalogs.getCatalog(id.getCatalogName());
        if (catalog.isEmpty()) {
            throw new FlowSyntaxException(
                    target.line(),
                    CLAUSE,
                    "target "
                            + target.name()
                            + " is in catalog "
                            + id.getCatalogName()
                            + ", which does not exist; the catalogs are "
                            + sorted(catalogs.listCatalogs())
                            + ": declare it with CREATE CATALOG before the table, or correct the"
                            + " name");
        }
        Catalog c = catalog.get();
        if (c.getFactory().isPresent() && !c.databaseExists(id.getDatabaseName())) {
            throw new FlowSyntaxException(
                    target.line(),
                    CLAUSE,
                    "target "
                            + target.name()
                            + " is in database "
                            + id.getDatabaseName()
                            + " of catalog "
                            + id.getCatalogName()
                            + ", which has no such database; its databases are "
                            + sorted(c.listDatabases())
                            + ": add CREATE DATABASE IF NOT EXISTS "
                            + id.getCatalogName()
                            + "."
                            + id.getDatabaseName()
                            + "; before the table, or correct the name");
        }
    }

    private static List<String> sorted(Iterable<String> names) {
        List<String> list = new ArrayList<>();
        names.forEach(list::add);
        list.sort(null);
        return list;
    }
}
