// Fixtures of the scale section: the syncs of one round, inserted set-based into the application
// database (connectors, catalogs, models and syncs as the services store them), and the triggers.
import { encryptJson } from "@/lib/crypto/encryption";
import type { Catalog } from "@/lib/connectors/types";
import { triggerSync } from "@/lib/engine";
import { CUSTOMER_MAPPING, pgConfig } from "./app";
import { CUSTOMER_COLUMNS, withClient } from "./pg";

/** The source table every round reads: syncs × rows customers, sync i reading ids (i·rows, (i+1)·rows]. */
export const SCALE_SOURCE = "scale_customers";

export interface ScaleSync {
  syncId: number;
  workspaceId: number;
}

/**
 * `syncs` syncs of `rows` rows each into `table`, sync i in workspace i mod W; one source and one
 * destination connector per workspace. Returned in trigger order: workspace by workspace, the
 * order in which a plain FIFO queue would serve the first workspaces' runs before any of the last's.
 */
export async function createRoundSyncs(options: {
  appUrl: string;
  sourceUrl: string;
  destinationUrl: string;
  label: string;
  workspaces: number[];
  syncs: number;
  rows: number;
  table: string;
  catalog: Catalog;
}): Promise<ScaleSync[]> {
  const { workspaces, syncs, rows, label } = options;
  const source = encryptJson(pgConfig(options.sourceUrl));
  const destination = encryptJson(pgConfig(options.destinationUrl));
  return withClient(options.appUrl, async (c) => {
    const out: ScaleSync[] = [];
    for (const [w, workspaceId] of workspaces.entries()) {
      const connector = async (type: string, config: string) =>
        (
          await c.query<{ id: number }>(
            `INSERT INTO connectors (workspace_id, connector_type, connector_name, name, configuration_encrypted, created_at, updated_at)
             VALUES ($1, $2, 'Postgresql', $3, $4, now(), now()) RETURNING id`,
            [workspaceId, type, `scale ${label} ${type}`, config],
          )
        ).rows[0].id;
      const sourceId = await connector("source", source);
      const destinationId = await connector("destination", destination);
      await c.query(
        "INSERT INTO catalogs (workspace_id, connector_id, catalog, catalog_hash, created_at, updated_at) VALUES ($1, $2, $3, $4, now(), now())",
        [workspaceId, destinationId, JSON.stringify(options.catalog), `scale-${label}`],
      );
      const indexes = Array.from({ length: syncs }, (_, i) => i).filter((i) => i % workspaces.length === w);
      const { rows: created } = await c.query<{ id: number }>(
        `WITH m AS (
           INSERT INTO models (workspace_id, connector_id, name, query, primary_key, created_at, updated_at)
           SELECT $1, $2, 'scale ' || $3 || ' model ' || i,
                  'SELECT ${CUSTOMER_COLUMNS} FROM ${SCALE_SOURCE} WHERE id > ' || (i * $4::int) || ' AND id <= ' || ((i + 1) * $4::int),
                  'id', now(), now()
           FROM unnest($5::int[]) AS i RETURNING id, name)
         INSERT INTO syncs (workspace_id, source_id, destination_id, model_id, name, configuration, schedule_type, sync_mode, stream_name, status, created_at, updated_at)
         SELECT $1, $2, $6, m.id, replace(m.name, ' model ', ' sync '), $7::jsonb, 'manual', 'incremental', $8, 'pending', now(), now()
         FROM m ORDER BY m.id RETURNING id`,
        [
          workspaceId,
          sourceId,
          label,
          rows,
          indexes,
          destinationId,
          JSON.stringify(CUSTOMER_MAPPING),
          options.table,
        ],
      );
      out.push(...created.map((s) => ({ syncId: s.id, workspaceId })));
    }
    return out;
  });
}

/**
 * Triggers every sync through the engine's trigger (what POST /api/v1/schedule_syncs calls), eight
 * at a time so 300 are queued within seconds, in the order given.
 */
export async function triggerAll(syncs: ScaleSync[]): Promise<number[]> {
  const runIds: number[] = new Array<number>(syncs.length);
  let next = 0;
  const lane = async () => {
    while (next < syncs.length) {
      const i = next++;
      runIds[i] = (await triggerSync(syncs[i].workspaceId, syncs[i].syncId)).id;
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return runIds;
}
