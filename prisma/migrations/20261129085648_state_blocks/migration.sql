-- Change-tracking states in blocks (issue 37, targets 1 and 7; docs/architecture.md, "Change tracking:
-- what a state costs"; lib/engine/state-blocks.ts). A run that begins with no state for its sync writes
-- each recorded batch's states as blocks of up to 64 keys in block order, in the transaction of its
-- record blocks, instead of a sync_states row per key (a heap tuple and a B-tree entry each: ~137
-- bytes, and most of a first sync's database CPU). Later changes go to sync_states as before; a row
-- there overrides the block entry of its key, and a row whose fingerprint is '-' says "no state" (a
-- forgotten key whose block entry remains).

-- CreateTable
CREATE TABLE "sync_state_blocks" (
    "id" BIGSERIAL NOT NULL,
    "sync_id" INTEGER NOT NULL,
    "run_id" INTEGER NOT NULL,
    "size" INTEGER NOT NULL,
    "first_key" TEXT COLLATE "C" NOT NULL,
    "last_key" TEXT COLLATE "C" NOT NULL,
    "keys" TEXT[] COLLATE "C",
    "fingerprints" UUID[],
    "statuses" TEXT NOT NULL,

    CONSTRAINT "sync_state_blocks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sync_state_blocks_sync_id_first_key_key" ON "sync_state_blocks"("sync_id", "first_key");

-- lz4 where the server has it, for blocks of long keys (md5s do not compress).
DO $$
BEGIN
  ALTER TABLE "sync_state_blocks" ALTER COLUMN "keys" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
  NULL;
END
$$;

-- Blocks order keys by their UTF-8 length, then bytewise ("block order"): the keys of a source read
-- in key order then fill blocks whose ranges do not overlap, integers included (bytewise alone,
-- "10000" sits between "1000" and "1001", inside the ranges of every earlier batch).
CREATE FUNCTION "ds_block_key"(k TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT lpad(octet_length(k)::text, 10, '0') || k COLLATE "C"
$$;

-- A sync's blocks go with it, like its states.
CREATE OR REPLACE FUNCTION "ds_delete_states_of_syncs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "sync_states" WHERE "sync_id" IN (SELECT "id" FROM "deleted_syncs");
  DELETE FROM "sync_state_blocks" WHERE "sync_id" IN (SELECT "id" FROM "deleted_syncs");
  RETURN NULL;
END
$$;

-- The block entries of `p_keys` (whether or not a sync_states row overrides them). A sync's blocks
-- never overlap (lib/engine/state-blocks.ts writes a batch whose range meets a block as rows), so a
-- key's block is the one with the greatest first_key at or below it: one index probe, then the key's
-- place among its 64. The SET keeps the function from being inlined, so the plan stays a probe per
-- key whatever the caller's estimates.
CREATE FUNCTION "ds_block_states"(p_sync INTEGER, p_keys TEXT[])
RETURNS TABLE (primary_key TEXT, fingerprint TEXT, last_status sync_record_status, last_run_id INTEGER)
LANGUAGE sql STABLE ROWS 100 SET jit = off AS $$
  SELECT k.key, coalesce(replace(b.fingerprints[p.pos]::text, '-', ''), ''),
         (CASE substr(b.statuses, p.pos, 1) WHEN 's' THEN 'success' WHEN 'f' THEN 'failed' ELSE 'skipped' END)::sync_record_status, b.run_id
    FROM (SELECT DISTINCT q COLLATE "C" AS key, "ds_block_key"(q) AS bk FROM unnest(p_keys) AS q) k
   CROSS JOIN LATERAL (
     SELECT x.last_key, x.keys, x.fingerprints, x.statuses, x.run_id
       FROM "sync_state_blocks" x
      WHERE x.sync_id = p_sync AND x.first_key <= k.bk
      ORDER BY x.first_key DESC LIMIT 1
   ) b
   CROSS JOIN LATERAL (SELECT array_position(b.keys, k.key) AS pos) p
   WHERE b.last_key >= k.bk AND p.pos IS NOT NULL
$$;

-- The states of `p_keys`: a sync_states row when there is one ('-': none), else a block entry. Each
-- key is probed in sync_states by its primary key (LIMIT 1 keeps the lateral subquery a probe, not a
-- hash of every state of the sync).
CREATE FUNCTION "ds_states_of"(p_sync INTEGER, p_keys TEXT[])
RETURNS TABLE (primary_key TEXT, fingerprint TEXT, last_status sync_record_status, last_run_id INTEGER)
LANGUAGE sql STABLE ROWS 100 SET jit = off AS $$
  WITH r AS MATERIALIZED (
    SELECT k.key, s.fingerprint, s.last_status, s.last_run_id
      FROM (SELECT DISTINCT q COLLATE "C" AS key FROM unnest(p_keys) AS q) k
      LEFT JOIN LATERAL (SELECT st.fingerprint, st.last_status, st.last_run_id FROM "sync_states" st
                          WHERE st.sync_id = p_sync AND st.primary_key = k.key LIMIT 1) s ON true
  )
  SELECT r.key, r.fingerprint, r.last_status, r.last_run_id FROM r WHERE r.fingerprint <> '-'
  UNION ALL
  SELECT b.primary_key, b.fingerprint, b.last_status, b.last_run_id
    FROM "ds_block_states"(p_sync, ARRAY(SELECT r.key FROM r WHERE r.fingerprint IS NULL)) b
$$;

-- Every state, as sync_states alone held them before: for SQL by hand, counts, and tests.
CREATE VIEW "sync_state_entries" AS
SELECT s.sync_id, s.primary_key, s.fingerprint, s.last_status, s.last_run_id
  FROM "sync_states" s WHERE s.fingerprint <> '-'
UNION ALL
SELECT b.sync_id, e.k, coalesce(replace(e.f::text, '-', ''), ''),
       (CASE e.s WHEN 's' THEN 'success' WHEN 'f' THEN 'failed' ELSE 'skipped' END)::sync_record_status, b.run_id
  FROM "sync_state_blocks" b
 CROSS JOIN LATERAL unnest(b.keys, b.fingerprints, string_to_array(b.statuses, NULL)) AS e(k, f, s)
 WHERE NOT EXISTS (SELECT 1 FROM "sync_states" o WHERE o.sync_id = b.sync_id AND o.primary_key = e.k);
