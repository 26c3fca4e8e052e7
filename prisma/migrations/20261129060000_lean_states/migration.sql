-- sync_states loses updated_at (issue 37, target 7): nothing reads it, and every state paid 8 bytes of
-- heap and WAL for it plus a now() per row of a first sync's COPY. Dropping a column rewrites nothing.
ALTER TABLE "sync_states" DROP COLUMN "updated_at";
