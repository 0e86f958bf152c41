-- The employees walkthrough on your own Kafka: change events in topic employees_cdf (JSON), the
-- bitemporal history in the upsert-kafka topic employees_bitemporal. Bad records (unparseable, blank,
-- inexact numbers, null keys, ...) go to the dead-letter topic with their bytes and reason.
--   deploy/autocdc validate --flow examples/employees_kafka.sql     (then: run)
CREATE TABLE employees_cdf (
  employeeId INT, name STRING, role STRING, operation STRING, effectiveDate DATE, recordedAt TIMESTAMP(0))
WITH ('connector' = 'kafka', 'topic' = 'employees_cdf', 'properties.bootstrap.servers' = 'localhost:9092',
      'properties.group.id' = 'autocdc-employees', 'scan.startup.mode' = 'earliest-offset',
      'format' = 'json');

-- At least once, like the target below; on a cluster write it exactly once too, or a failover writes the
-- letters of the replayed input again (docs/bad-input.md#how-often-a-letter-is-written): add
-- 'sink.delivery-guarantee' = 'exactly-once', 'sink.transactional-id-prefix' = 'autocdc-employees-dead-letters'
-- (a prefix of its own), 'properties.transaction.timeout.ms' = '900000'.
CREATE TABLE employees_dead_letters (flow STRING, source STRING, reason STRING, message STRING, payload STRING,
  topic STRING, `partition` INT, `offset` BIGINT, raw_record BYTES)
WITH ('connector' = 'kafka', 'topic' = 'employees_dead_letters',
      'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');

SET 'autocdc.apply_cdc.dead-letter-table' = 'employees_dead_letters';
SET 'autocdc.apply_cdc.tombstone-retention' = '7 d';

-- At least once, so that a local run without checkpoints shows its rows at once. On a cluster, where a
-- failover replays events, write it exactly once or it can keep rows of a failed attempt
-- (docs/reliability.md): add 'sink.delivery-guarantee' = 'exactly-once',
-- 'sink.transactional-id-prefix' = 'autocdc-employees', 'properties.transaction.timeout.ms' = '900000'
-- (at most the broker's transaction.max.timeout.ms; a recovery longer than it loses rows: docs/deploy.md).
CREATE OR REFRESH STREAMING TABLE employees_bitemporal
WITH ('connector' = 'upsert-kafka', 'topic' = 'employees_bitemporal',
      'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json');

CREATE FLOW apply_cdc AS AUTO CDC INTO employees_bitemporal
FROM STREAM(employees_cdf)
KEYS (employeeId)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY effectiveDate
SYSTEM SEQUENCE BY recordedAt
COLUMNS * EXCEPT (operation)
STORED AS BITEMPORAL;
