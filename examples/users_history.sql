-- The users feed of the references, from a JSON file, into an SCD type 2 history.
-- Run from the repository root:
--   deploy/autocdc run --flow examples/users_history.sql --materialize /tmp/users_history.jsonl
CREATE TABLE users_cdf (userId INT, name STRING, city STRING, operation STRING, sequenceNum INT)
WITH ('connector' = 'filesystem', 'path' = 'examples/users_cdf.json', 'format' = 'json');

CREATE OR REFRESH STREAMING TABLE users_history;

CREATE FLOW apply_cdc AS AUTO CDC INTO users_history
FROM STREAM(users_cdf)
KEYS (userId)
APPLY AS DELETE WHEN operation = "DELETE"
SEQUENCE BY sequenceNum
COLUMNS * EXCEPT (operation, sequenceNum)
STORED AS SCD TYPE 2;
