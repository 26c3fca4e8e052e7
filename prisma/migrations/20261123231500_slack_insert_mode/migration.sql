-- Slack destinations support only the insert write mode (docs/write-modes.md): syncs made before
-- write modes existed (upsert by default) take it, so every stored sync holds a mode its destination supports.
UPDATE "syncs" SET "write_mode" = 'insert'
WHERE "write_mode" <> 'insert'
  AND "destination_id" IN (SELECT "id" FROM "connectors" WHERE "connector_type" = 'destination' AND lower("connector_name") = 'slack');
