-- Sync records move from one row each (sync_records) to blocks of up to 1000 (sync_record_blocks;
-- lib/engine/records/format.ts says the format). Existing records become blocks of one record whose
-- first_id is the record's id, so every id stays what it was; new blocks take ids from 10^12 on.

-- CreateTable
CREATE TABLE "sync_record_blocks" (
    "sync_run_id" INTEGER NOT NULL,
    "first_id" BIGSERIAL NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "failed" INTEGER NOT NULL,
    "codes" TEXT NOT NULL,
    "keys" TEXT NOT NULL,
    "rows" TEXT NOT NULL,
    "details" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sync_record_blocks_pkey" PRIMARY KEY ("sync_run_id","first_id")
);

-- A run's failures without reading its other blocks (status=failed lists and exports).
CREATE INDEX "sync_record_blocks_failed" ON "sync_record_blocks" ("sync_run_id", "first_id") WHERE "failed" > 0;

-- lz4 where the server has it: several times faster than the default pglz on the block texts.
DO $$
BEGIN
  ALTER TABLE "sync_record_blocks" ALTER COLUMN "keys" SET COMPRESSION lz4,
    ALTER COLUMN "rows" SET COMPRESSION lz4, ALTER COLUMN "details" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  NULL;
END
$$;

-- Codes: 'A' + outcome * 3 + action; outcomes success, failed, skipped, delivered (skipped as already
-- delivered, counted delivered), pending; actions insert, update, delete.
INSERT INTO "sync_record_blocks" ("sync_run_id", "first_id", "sync_id", "size", "failed", "codes", "keys", "rows", "details", "created_at")
SELECT "sync_run_id", "id", "sync_id", 1, ("status" = 'failed')::int,
       chr(65 + 3 * (CASE "status"
                       WHEN 'success' THEN 0 WHEN 'failed' THEN 1
                       WHEN 'skipped' THEN CASE WHEN starts_with(coalesce("error", ''), 'Already delivered with idempotency key') THEN 3 ELSE 2 END
                       ELSE 4 END)
                + CASE "action" WHEN 'destination_insert' THEN 0 WHEN 'destination_update' THEN 1 ELSE 2 END),
       CASE WHEN left("primary_key", 1) = '"' OR strpos("primary_key", E'\n') > 0 THEN to_json("primary_key")::text ELSE "primary_key" END,
       -- A raw line break in JSON text is only ever whitespace between tokens.
       CASE WHEN "record" IS NOT NULL THEN 'j' || regexp_replace("record"::text, E'[\\n\\r]+', ' ', 'g')
            WHEN "row_text" IS NOT NULL THEN 'c' || "row_text" ELSE '' END,
       CASE WHEN "error" IS NULL AND "logs" IS NULL THEN NULL ELSE json_build_object('e', "error", 'l', "logs")::text END,
       "created_at"
  FROM "sync_records";

ALTER SEQUENCE "sync_record_blocks_first_id_seq" INCREMENT BY 1000;
SELECT setval('sync_record_blocks_first_id_seq', greatest(999999999000, (SELECT coalesce(max("id"), 0) FROM "sync_records")));

CREATE OR REPLACE FUNCTION "ds_delete_records_of_runs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sync_record_blocks" WHERE "sync_run_id" IN (SELECT "id" FROM "deleted_runs");
  RETURN NULL;
END
$$;

-- DropTable
DROP TABLE "sync_records";

-- One row per record, decoded, for SQL by hand (the API reads the blocks itself: lib/engine/records/read.ts).
CREATE VIEW "sync_record_rows" AS
SELECT b."first_id" + r.i - 1 AS "id", b."sync_id", b."sync_run_id",
       CASE WHEN left(r.key, 1) = '"' THEN r.key::json #>> '{}' ELSE coalesce(r.key, '') END AS "primary_key",
       CASE WHEN left(r.line, 1) = 'j' THEN substr(r.line, 2)::json END AS "record",
       CASE WHEN left(r.line, 1) = 'c' THEN substr(r.line, 2) END AS "row_text",
       ('{success,failed,skipped,skipped,pending}'::sync_record_status[])[(ascii(r.code) - 65) / 3 + 1] AS "status",
       ('{destination_insert,destination_update,destination_delete}'::sync_record_action[])[(ascii(r.code) - 65) % 3 + 1] AS "action",
       CASE WHEN r.detail <> '' THEN r.detail::json ->> 'e' END AS "error",
       CASE WHEN r.detail <> '' AND json_typeof(r.detail::json -> 'l') <> 'null' THEN r.detail::json -> 'l' END AS "logs",
       b."created_at"
  FROM "sync_record_blocks" b
 CROSS JOIN LATERAL unnest(string_to_array(b."codes", NULL), string_to_array(b."keys", E'\n'), string_to_array(b."rows", E'\n'),
                           string_to_array(coalesce(b."details", repeat(E'\n', b."size" - 1)), E'\n'))
       WITH ORDINALITY AS r(code, key, line, detail, i);
