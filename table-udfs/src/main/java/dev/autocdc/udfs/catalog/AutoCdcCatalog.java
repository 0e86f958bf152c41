package dev.autocdc.udfs.catalog;

import java.util.List;
import java.util.Map;
import org.apache.flink.table.catalog.GenericInMemoryCatalog;
import org.apache.flink.table.catalog.ObjectPath;
import org.apache.flink.table.catalog.exceptions.CatalogException;
import org.apache.flink.table.catalog.exceptions.DatabaseNotExistException;
import org.apache.flink.table.catalog.exceptions.ProcedureNotExistException;
import org.apache.flink.table.procedures.Procedure;

/**
 * The {@code autocdc} catalog: an in-memory catalog whose database {@value #SYSTEM} holds the
 * procedures, as Paimon's {@code sys} does: {@code CALL autocdc.sys.run_flow('<flow text or
 * file>')} ({@link RunFlowProcedure}), {@code CALL autocdc.sys.validate_flow(...)} ({@link
 * ValidateFlowProcedure}), {@code CALL autocdc.sys.bootstrap_flow(...)} ({@link
 * BootstrapFlowProcedure}) and {@code CALL autocdc.sys.erase_key(...)} ({@link EraseKeyProcedure}).
 */
public final class AutoCdcCatalog extends GenericInMemoryCatalog {
    /** The database of the procedures. */
    public static final String SYSTEM = "sys";

    private static final Map<String, Procedure> PROCEDURES =
            Map.of(
                    RunFlowProcedure.NAME, new RunFlowProcedure(),
                    ValidateFlowProcedure.NAME, new ValidateFlowProcedure(),
                    BootstrapFlowProcedure.NAME, new BootstrapFlowProcedure(),
                    EraseKeyProcedure.NAME, new EraseKeyProcedure());

    public AutoCdcCatalog(String name) {
        super(name, SYSTEM);
    }

    @Override
    public List<String> listProcedures(String database)
            throws DatabaseNotExistException, CatalogException {
        if (!databaseExists(database)) {
            throw new DatabaseNotExistException(getName(), database);
        }
        return database.equals(SYSTEM) ? List.copyOf(PROCEDURES.keySet()) : List.of();
    }

    @Override
    public Procedure getProcedure(ObjectPath path)
            throws ProcedureNotExistException, CatalogException {
        Procedure p =
                path.getDatabaseName().equals(SYSTEM) ? PROCEDURES.get(path.getObjectName()) : null;
        if (p == null) {
            throw new ProcedureNotExistException(getName(), path);
        }
        return p;
    }
}
