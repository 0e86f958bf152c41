-- Registers the AUTO CDC SQL functions and the autocdc catalog, whose procedures run and validate
-- flows, in a Flink SQL-client session (docs/sql-functions.md).
-- Build the jar first (mvn -B -ntp -q package -DskipTests), then, from the repository root:
--   $FLINK_HOME/bin/sql-client.sh -i deploy/sql-client-init.sql
-- The path below is relative to the directory the client starts in; make it absolute to start elsewhere.
ADD JAR 'table-udfs/target/autocdc-table-udfs-0.1.0-SNAPSHOT.jar';

CREATE FUNCTION IF NOT EXISTS AUTO_CDC AS 'dev.autocdc.udfs.AutoCdcTableFunction';
CREATE FUNCTION IF NOT EXISTS AUTO_CDC_UPSERT AS 'dev.autocdc.udfs.AutoCdcUpsertTableFunction';
CREATE FUNCTION IF NOT EXISTS AS_OF AS 'dev.autocdc.udfs.AsOf';
CREATE FUNCTION IF NOT EXISTS VALID_AT AS 'dev.autocdc.udfs.ValidAt';
CREATE FUNCTION IF NOT EXISTS BELIEVED_AT AS 'dev.autocdc.udfs.BelievedAt';
CREATE CATALOG IF NOT EXISTS autocdc WITH ('type' = 'autocdc');
