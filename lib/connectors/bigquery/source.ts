// The BigQuery source: model queries run as query jobs (GoogleSQL), read page by page; discovery
// from each dataset's INFORMATION_SCHEMA.COLUMNS; check with the credentials, the dataset and a dry
// run. Errors are scrubbed of the key's secret before anyone sees them.
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { modelSelect, subquery } from "../shared/sql";
import { callApi } from "./api";
import { MAX_DISCOVERED_COLUMNS, MAX_DISCOVERED_STREAMS, MAX_DISCOVERY_PAGES } from "../shared/discovery-limits";
import { bigquerySettings, bigquerySourceDefinition, type BigquerySettings } from "./definition";
import { assertSelectStatement, dryRunSchema, queryPages } from "./jobs";
import { columnSchema, rowOf, typeText } from "./values";

/** Rows per results page: BigQuery caps a page at 10 MB whatever this says. */
const MAX_PAGE_ROWS = 10_000;

export const quoteIdent = (name: string): string => {
  if (/[`\\\n]/.test(name)) throw new ConnectorError(`"${name}" cannot be used as a column name here.`);
  return `\`${name}\``;
};

/** Runs `fn`, rethrowing any failure as a ConnectorError whose sentence holds no secret of `config`. */
async function scrubbed<T>(config: Row, fn: (s: BigquerySettings) => Promise<T>): Promise<T> {
  try {
    return await fn(bigquerySettings(config));
  } catch (err) {
    const secrets = secretValues(config, bigquerySourceDefinition);
    throw new ConnectorError(redact(errorMessage(err), secrets), (err as { code?: string }).code);
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(bigquerySourceDefinition, config, async () => {
    const s = bigquerySettings(config);
    const project = encodeURIComponent(s.projectId);
    let where = `project "${s.projectId}"`;
    if (s.datasetId) {
      const dataset = await callApi<{ location?: string }>(s, { method: "GET", path: `/projects/${project}/datasets/${s.datasetId}`, signal });
      where += `, dataset "${s.datasetId}"${dataset.location ? ` (${dataset.location})` : ""}`;
    } else {
      await callApi(s, { method: "GET", path: `/projects/${project}/datasets`, query: { maxResults: 1 }, signal });
    }
    // A dry run: may the service account run query jobs here?
    await dryRunSchema(s, "SELECT 1", signal);
    return { ok: true, details: `Connected to BigQuery ${where} as ${s.key.client_email}.` };
  });
}

async function listDatasets(s: BigquerySettings, signal?: AbortSignal): Promise<string[]> {
  if (s.datasetId) return [s.datasetId];
  const out: string[] = [];
  let pages = 0;
  let pageToken: string | undefined;
  do {
    const page = await callApi<{ datasets?: { datasetReference: { datasetId: string } }[]; nextPageToken?: string }>(s, {
      method: "GET",
      path: `/projects/${encodeURIComponent(s.projectId)}/datasets`,
      query: { maxResults: 1000, pageToken },
      signal,
    });
    out.push(...(page.datasets ?? []).map((d) => d.datasetReference.datasetId));
    pageToken = page.nextPageToken;
  } while (pageToken && out.length < 1000 && ++pages < MAX_DISCOVERY_PAGES);
  return out;
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return scrubbed(config, async (s) => {
    const streams: Stream[] = [];
    const datasets = await listDatasets(s, signal);
    let columnRows = 0;
    for (const dataset of datasets) {
      if (streams.length >= MAX_DISCOVERED_STREAMS || columnRows >= MAX_DISCOVERED_COLUMNS) break;
      const sql = `SELECT table_name, column_name, data_type, is_nullable FROM ${quoteIdent(s.projectId)}.${quoteIdent(dataset)}.INFORMATION_SCHEMA.COLUMNS ORDER BY table_name, ordinal_position`;
      const tables = new Map<string, { name: string; type: string; nullable: boolean }[]>();
      let pages = 0;
      listing: for await (const page of queryPages(s, sql, { pageSize: MAX_PAGE_ROWS, signal })) {
        if (++pages > MAX_DISCOVERY_PAGES) break;
        for (const r of page.rows.map((row) => rowOf(page.schema, row))) {
          if (++columnRows > MAX_DISCOVERED_COLUMNS) break listing;
          const table = String(r.table_name);
          if (!tables.has(table)) {
            if (streams.length + tables.size >= MAX_DISCOVERED_STREAMS) break listing;
            tables.set(table, []);
          }
          tables.get(table)!.push({ name: String(r.column_name), type: String(r.data_type), nullable: r.is_nullable === "YES" });
        }
      }
      for (const [table, columns] of tables) {
        // One dataset: plain table names, as models use them with the default dataset.
        const name = s.datasetId ? table : `${dataset}.${table}`;
        streams.push({
          name,
          action: "fetch",
          url: `${s.projectId}.${dataset}.${table}`,
          json_schema: { type: "object", properties: Object.fromEntries(columns.map((c) => [c.name, columnSchema(c.type, c.nullable)])) },
          batch_support: false,
          batch_size: 0,
          request_method: "GET",
        });
      }
    }
    return buildCatalog(streams);
  });
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const inner = modelSelect(sql, "bigquery");
  return scrubbed(config, async (s) => {
    const n = Math.max(0, Math.floor(limit));
    const sql = `SELECT * FROM ${subquery(inner)} AS q LIMIT ${n}`;
    await assertSelectStatement(s, sql, signal);
    for await (const page of queryPages(s, sql, { pageSize: Math.max(1, Math.min(n, MAX_PAGE_ROWS)), signal })) {
      return { columns: page.schema.map((f) => ({ name: f.name, type: typeText(f) })), rows: page.rows.slice(0, n).map((r) => rowOf(page.schema, r)) };
    }
    return { columns: [], rows: [] };
  });
}

/** Types a cursor can be compared in (CAST from the cursor's text). */
const CURSOR_TYPES = new Set(["INTEGER", "INT64", "FLOAT", "FLOAT64", "NUMERIC", "BIGNUMERIC", "STRING", "DATE", "DATETIME", "TIME", "TIMESTAMP", "BOOL", "BOOLEAN"]);

/** The SQL a read runs, with the incremental cursor's condition and order when there is one. */
export async function readSql(s: BigquerySettings, options: ReadOptions): Promise<{ sql: string; params?: Record<string, string> }> {
  const inner = modelSelect(options.query, "bigquery");
  if (!options.cursorField) return { sql: `SELECT * FROM ${subquery(inner)} AS q` };
  const cursor = quoteIdent(options.cursorField);
  const hasValue = options.cursorValue !== undefined && options.cursorValue !== null;
  if (!hasValue) return { sql: `SELECT * FROM ${subquery(inner)} AS q ORDER BY ${cursor}` };
  // The cursor's value arrives as text: compare it in the column's own type (a dry run says which).
  const field = (await dryRunSchema(s, inner, options.signal)).find((f) => f.name === options.cursorField);
  if (!field) throw new ConnectorError(`The cursor field "${options.cursorField}" is not a column of the model's query.`);
  if (field.mode === "REPEATED" || !CURSOR_TYPES.has(field.type)) throw new ConnectorError(`The cursor field "${options.cursorField}" is ${typeText(field)}, which cannot be compared: pick a number, text, date or timestamp column.`);
  return {
    sql: `SELECT * FROM ${subquery(inner)} AS q WHERE ${cursor} >= CAST(@cursor_value AS ${field.type}) ORDER BY ${cursor}`,
    params: { cursor_value: String(options.cursorValue) },
  };
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const secrets = secretValues(config, bigquerySourceDefinition);
  try {
    const s = bigquerySettings(config);
    const { sql, params } = await readSql(s, options);
    await assertSelectStatement(s, sql, options.signal, params);
    for await (const page of queryPages(s, sql, { signal: options.signal, params, pageSize: Math.min(batchSize, MAX_PAGE_ROWS) })) {
      for (let i = 0; i < page.rows.length; i += batchSize) {
        yield page.rows.slice(i, i + batchSize).map((r) => rowOf(page.schema, r));
      }
    }
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secrets), (err as { code?: string }).code);
  }
}

export const bigquerySource: SourceConnector = {
  definition: bigquerySourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void modelSelect(q, "bigquery"),
  read,
};
