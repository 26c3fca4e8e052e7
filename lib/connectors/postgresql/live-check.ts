// Live syncs, the model side: whether a source and model can stream (logical replication on; the
// model one plain table, filtered on its own columns, keyed by the table's primary key), and the
// model's current rows for the keys a micro-batch changed.
import type pg from "pg";
import type { LiveCheck, LiveKeyReader, LiveModel } from "../live";
import type { Row } from "../types";
import { jsonSafeRow, modelSelect, subquery } from "../shared/sql";
import { ConnectorError } from "../shared/errors";
import { beginRead, connect, described, pgSettings, quoteIdent, withClient } from "./connection";
import { oneStatement } from "./one-statement";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Schema?: string;
  Output?: string[];
  Plans?: PlanNode[];
  "Parent Relationship"?: string;
}

/** Nodes that read the table itself. */
const SCANS = new Set(["Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan"]);
/** Nodes that pass a scan's rows on unchanged in content (order, parallelism, index lookups). */
const PASSING = new Set(["Bitmap Index Scan", "Sort", "Incremental Sort", "Gather", "Gather Merge", "BitmapOr", "BitmapAnd"]);

const STAY_SCHEDULED = "Models that join, aggregate, limit or read other queries stay on a schedule; a live model is one table, or a SELECT of one table with a WHERE on its own columns.";

/** The table a model streams, read from the server's plan of it (never from parsing the text ourselves). */
function planTable(plan: PlanNode): { table?: { schema: string; name: string }; refused?: string } {
  const tables = new Map<string, { schema: string; name: string }>();
  let refused: string | undefined;
  const walk = (node: PlanNode) => {
    const type = node["Node Type"];
    if (node["Parent Relationship"] === "InitPlan" || node["Parent Relationship"] === "SubPlan") refused ??= "reads a subquery";
    if (SCANS.has(type) && node["Relation Name"] && node.Schema) {
      tables.set(JSON.stringify([node.Schema, node["Relation Name"]]), { schema: node.Schema, name: node["Relation Name"] });
    } else if (!PASSING.has(type)) refused ??= /Join|Nested Loop/.test(type) ? "joins tables" : `needs a ${type} step`;
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  if (refused) return { refused };
  if (tables.size !== 1) return { refused: tables.size === 0 ? "reads no table" : `reads ${tables.size} tables` };
  return { table: [...tables.values()][0] };
}

async function walLevel(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ wal_level: string }>("SHOW wal_level");
  return rows[0]?.wal_level ?? "unknown";
}

/** See LiveSource.check. */
export async function checkLive(config: Row, model: LiveModel): Promise<LiveCheck> {
  return described(config, () =>
    withClient(config, async (client) => {
      const level = await walLevel(client);
      if (level !== "logical") {
        return {
          ok: false,
          field: "source",
          reason: `The source runs with wal_level=${level}: live syncs read its changes through logical replication, which needs wal_level=logical (set it in postgresql.conf and restart PostgreSQL).`,
        };
      }
      await beginRead(client);
      try {
        const inner = modelSelect(model.query, "postgresql");
        const explained = await client.query<{ "QUERY PLAN": unknown }>(oneStatement(`EXPLAIN (VERBOSE, FORMAT JSON) ${inner}`));
        const raw = explained.rows[0]?.["QUERY PLAN"];
        const plan = ((typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[])[0].Plan;
        const { table, refused } = planTable(plan);
        if (!table) return { ok: false, field: "model", reason: `This model ${refused}. ${STAY_SCHEDULED}` };
        const qualified = `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
        const keyed = await keyedByTable(client, inner, model.primaryKey, plan, table);
        if (keyed) return { ok: false, field: "model", reason: keyed };
        return { ok: true, table: qualified };
      } finally {
        await client.query("ROLLBACK").catch(() => undefined);
      }
    }),
  );
}

/**
 * Null when the model's primary key column is the table's own one-column primary key, passed
 * through (a delete carries only the key); else why not.
 */
async function keyedByTable(client: pg.Client, inner: string, primaryKey: string, plan: PlanNode, table: { schema: string; name: string }): Promise<string | null> {
  const { rows } = await client.query<{ relkind: string; pk: string[] | null }>(
    `SELECT c.relkind::text AS relkind,
            ARRAY(SELECT a.attname::text FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
                   WHERE k.conrelid = c.oid AND k.contype = 'p') AS pk
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
    [table.schema, table.name],
  );
  const what = `"${table.schema}"."${table.name}"`;
  if (rows[0]?.relkind !== "r") return `${what} is not a plain table (views and partitioned tables do not stream). ${STAY_SCHEDULED}`;
  const pk = rows[0].pk ?? [];
  if (pk.length !== 1 || pk[0] !== primaryKey) {
    return `A live model's primary key must be its table's one-column primary key: ${what} has ${pk.length === 0 ? "none" : `(${pk.join(", ")})`}, the model names "${primaryKey}".`;
  }
  const { fields } = await client.query(oneStatement(`SELECT * FROM ${subquery(inner)} AS q LIMIT 0`));
  const index = fields.findIndex((f) => f.name === primaryKey);
  const output = index < 0 ? undefined : plan.Output?.[index];
  const plain = output !== undefined && [primaryKey, quoteIdent(primaryKey)].some((name) => output === name || output.endsWith(`.${name}`));
  return plain ? null : `The model's column "${primaryKey}" must be the table's column "${primaryKey}" itself, not an expression.`;
}

/** How long a read waits for its transactions to become visible before it gives up (the run is retried). */
const VISIBLE_WAIT_MS = 10_000;

/**
 * Whether the transactions `xids` (pgoutput's 32-bit ids) are visible to this transaction's snapshot.
 * Each id gets its epoch from the snapshot's xmax: one less when the id is above xmax's low 32 bits
 * (it was assigned before the counter wrapped).
 */
async function visible(c: pg.Client, xids: number[]): Promise<boolean> {
  const { rows } = await c.query<{ visible: boolean }>(
    `SELECT coalesce(bool_and(txid_visible_in_snapshot(((greatest((m >> 32) - (x > (m & 4294967295))::int, 0) << 32) | x), s)), true) AS visible
       FROM (SELECT txid_current_snapshot() AS s) a, LATERAL (SELECT txid_snapshot_xmax(a.s) AS m) b, unnest($1::bigint[]) AS x`,
    [xids],
  );
  return rows[0]?.visible ?? true;
}

/**
 * See LiveSource.keyReader: the model's rows whose key is among `keys` (the key's text as the source
 * writes it), on one connection kept until close(). A connection per micro-batch (authentication and
 * the key's type looked up each time) cost more than the read itself (bench/README.md, live).
 */
export function liveKeyReader(config: Row, model: LiveModel): LiveKeyReader {
  let client: pg.Client | undefined;
  let text: string | null | undefined;
  const drop = async () => {
    const gone = client;
    client = undefined;
    await gone?.end().catch(() => undefined);
  };
  const read = async (c: pg.Client, keys: string[], xids: number[]) => {
    // A streamed transaction is in the WAL a moment before other sessions see it: read too soon, its
    // rows look gone and nothing is sent for them. So the read waits, in the snapshot it then reads
    // in (repeatable read), until every transaction of the batch is visible.
    for (let waited = 0, pause = 2; ; waited += pause, pause = Math.min(pause * 2, 100)) {
      await c.query("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        if (xids.length === 0 || (await visible(c, xids))) {
          text ??= await keyedSelect(c, model);
          if (text === null) return [];
          const { rows } = await c.query<Row>(oneStatement(text, [keys]));
          return rows.map(jsonSafeRow);
        }
      } finally {
        await c.query("ROLLBACK").catch(() => undefined);
      }
      if (waited >= VISIBLE_WAIT_MS) throw new ConnectorError(`The source's transactions ${xids.join(", ")} did not become visible within ${VISIBLE_WAIT_MS / 1000} s of being streamed.`);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  };
  return {
    async read(keys, xids = []) {
      if (keys.length === 0) return [];
      return described(config, async () => {
        const reused = client !== undefined;
        client ??= await connect(pgSettings(config));
        try {
          return await read(client, keys, xids);
        } catch (err) {
          // The kept connection may be what failed (server restarted, session ended while idle): the read
          // is read-only, so it is tried once more on a new one.
          await drop();
          if (!reused) throw err;
          client = await connect(pgSettings(config));
          return await read(client, keys, xids);
        }
      });
    },
    close: drop,
  };
}

/** The model's SELECT for a list of keys, compared as the key's own type so the table's primary key index serves it; null when the model has no such column. */
async function keyedSelect(client: pg.Client, model: LiveModel): Promise<string | null> {
  const inner = modelSelect(model.query, "postgresql");
  const { fields } = await client.query(oneStatement(`SELECT * FROM ${subquery(inner)} AS live_rows LIMIT 0`));
  const key = fields.find((f) => f.name === model.primaryKey);
  if (!key) return null;
  const { rows: typed } = await client.query<{ type: string }>("SELECT format_type($1::oid, NULL) AS type", [key.dataTypeID]);
  return `SELECT * FROM ${subquery(inner)} AS live_rows WHERE live_rows.${quoteIdent(model.primaryKey)} = ANY ($1::text[]::${typed[0].type}[])`;
}
