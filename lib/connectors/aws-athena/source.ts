// The Amazon Athena source: model queries (Trino SQL) run as query executions, read page by page;
// discovery from the data catalog's table metadata (ListTableMetadata: the tables' own column
// types); check with GetWorkGroup (and GetDatabase). Errors are scrubbed of the secret key.
import { GetDatabaseCommand, GetWorkGroupCommand, ListDatabasesCommand, ListTableMetadataCommand, type AthenaClient } from "@aws-sdk/client-athena";
import type { Catalog, CheckResult, QueryResult, ReadOptions, Row, SourceConnector, Stream } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { modelSelect, subquery } from "../shared/sql";
import { MAX_DISCOVERED_COLUMNS, MAX_DISCOVERED_STREAMS, MAX_DISCOVERY_PAGES } from "../shared/discovery-limits";
import { athenaClient } from "./client";
import { athenaSettings, athenaSourceDefinition, type AthenaSettings } from "./definition";
import { columnType, resultPages, type ResultPage } from "./queries";
import { cellValue, columnSchema, cursorLiteral } from "./values";

export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** A sentence for an AWS error: what to do for the common refusals, Athena's message otherwise. */
export function describeAwsError(err: unknown): string {
  const name = (err as { name?: string }).name ?? "";
  const message = errorMessage(err);
  if (/UnrecognizedClient|InvalidSignature|SignatureDoesNotMatch|InvalidClientTokenId|AccessDenied/.test(name)) {
    return `AWS refused the access key (${name}): check access_key and secret_access_key, and that the IAM user may use Athena. ${message}`;
  }
  if (name === "ThrottlingException" || name === "TooManyRequestsException") return `Athena is throttling requests (${name}), still after retries: ${message}`;
  if (name === "InvalidRequestException") return `Athena refused the request: ${message}`;
  if (name === "AbortError") return "The read was cancelled.";
  return message;
}

async function withAthena<T>(config: Row, fn: (client: AthenaClient, s: AthenaSettings) => Promise<T>): Promise<T> {
  const secrets = secretValues(config, athenaSourceDefinition);
  let client: AthenaClient | undefined;
  try {
    const s = athenaSettings(config);
    client = athenaClient(s);
    return await fn(client, s);
  } catch (err) {
    throw new ConnectorError(redact(err instanceof ConnectorError ? err.message : describeAwsError(err), secrets), (err as { code?: string }).code);
  } finally {
    client?.destroy();
  }
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(athenaSourceDefinition, config, () =>
    withAthena(config, async (client, s) => {
      const { WorkGroup } = await client.send(new GetWorkGroupCommand({ WorkGroup: s.workgroup }), { abortSignal: signal });
      if (WorkGroup?.State === "DISABLED") return { ok: false, details: `The Athena workgroup "${s.workgroup}" is disabled: enable it or name another.` };
      if (s.database) await client.send(new GetDatabaseCommand({ CatalogName: s.catalog, DatabaseName: s.database }), { abortSignal: signal });
      return { ok: true, details: `Connected to Athena in ${s.region}: workgroup "${s.workgroup}", catalog "${s.catalog}"${s.database ? `, database "${s.database}"` : ""}.` };
    }),
  );
}

async function databases(client: AthenaClient, s: AthenaSettings, signal?: AbortSignal): Promise<string[]> {
  if (s.database) return [s.database];
  const out: string[] = [];
  let pages = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListDatabasesCommand({ CatalogName: s.catalog, NextToken: token, MaxResults: 50 }), { abortSignal: signal });
    out.push(...(page.DatabaseList ?? []).map((d) => d.Name ?? "").filter((n) => n !== "" && n !== "information_schema"));
    token = page.NextToken;
  } while (token && out.length < 1000 && ++pages < MAX_DISCOVERY_PAGES);
  return out;
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  return withAthena(config, async (client, s) => {
    const streams: Stream[] = [];
    // Bounded: a hostile endpoint could page forever (docs/connectors.md "Discovery limits").
    let pages = 0;
    let columnCount = 0;
    listing: for (const database of await databases(client, s, signal)) {
      let token: string | undefined;
      do {
        if (++pages > MAX_DISCOVERY_PAGES) break listing;
        const page = await client.send(new ListTableMetadataCommand({ CatalogName: s.catalog, DatabaseName: database, NextToken: token, MaxResults: 50 }), { abortSignal: signal });
        for (const table of page.TableMetadataList ?? []) {
          const columns = [...(table.Columns ?? []), ...(table.PartitionKeys ?? [])];
          columnCount += columns.length;
          if (streams.length >= MAX_DISCOVERED_STREAMS || columnCount > MAX_DISCOVERED_COLUMNS) break listing;
          streams.push({
            name: s.database ? (table.Name ?? "") : `${database}.${table.Name ?? ""}`,
            action: "fetch",
            url: `${s.catalog}.${database}.${table.Name ?? ""}`,
            json_schema: { type: "object", properties: Object.fromEntries(columns.map((c) => [c.Name ?? "", columnSchema(c.Type ?? "varchar")])) },
            batch_support: false,
            batch_size: 0,
            request_method: "GET",
          });
        }
        token = page.NextToken;
      } while (token);
    }
    return buildCatalog(streams);
  });
}

function pageRows(page: ResultPage): Row[] {
  const types = page.columns.map((c) => c.Type ?? "varchar");
  const names = page.columns.map((c) => c.Name ?? "");
  return page.rows.map((r) => {
    const row: Row = {};
    const data = r.Data ?? [];
    for (let i = 0; i < names.length; i++) row[names[i]] = cellValue(types[i], data[i]?.VarCharValue);
    return row;
  });
}

async function query(config: Row, sql: string, limit: number, signal?: AbortSignal): Promise<QueryResult> {
  const inner = modelSelect(sql, "trino");
  return withAthena(config, async (client, s) => {
    const n = Math.max(0, Math.floor(limit));
    const rows: Row[] = [];
    let columns: QueryResult["columns"] = [];
    for await (const page of resultPages(client, s, `SELECT * FROM ${subquery(inner)} AS q LIMIT ${n}`, { pageSize: n + 1, signal })) {
      columns = page.columns.map((c) => ({ name: c.Name ?? "", type: columnType(c) }));
      rows.push(...pageRows(page));
      if (rows.length >= n) break;
    }
    return { columns, rows: rows.slice(0, n) };
  });
}

/** The SQL a read runs: the cursor compared in its column's own type (asked of Athena with LIMIT 0). */
async function readSql(client: AthenaClient, s: AthenaSettings, options: ReadOptions): Promise<string> {
  const inner = modelSelect(options.query, "trino");
  if (!options.cursorField) return `SELECT * FROM ${subquery(inner)} AS q`;
  const cursor = quoteIdent(options.cursorField);
  if (options.cursorValue === undefined || options.cursorValue === null) return `SELECT * FROM ${subquery(inner)} AS q ORDER BY ${cursor}`;
  let type: string | undefined;
  for await (const page of resultPages(client, s, `SELECT * FROM ${subquery(inner)} AS q LIMIT 0`, { signal: options.signal })) {
    const column = page.columns.find((c) => c.Name === options.cursorField);
    type = column ? columnType(column) : undefined;
    break;
  }
  if (!type) throw new ConnectorError(`The cursor field "${options.cursorField}" is not a column of the model's query.`);
  if (!/^[a-z0-9 (),]+$/i.test(type) || /^(array|map|row|json|varbinary)/i.test(type)) {
    throw new ConnectorError(`The cursor field "${options.cursorField}" is ${type}, which cannot be compared: pick a number, text, date or timestamp column.`);
  }
  return `SELECT * FROM ${subquery(inner)} AS q WHERE ${cursor} >= CAST(${cursorLiteral(type, String(options.cursorValue))} AS ${type}) ORDER BY ${cursor}`;
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const batchSize = Math.max(1, Math.floor(options.batchSize));
  const secrets = secretValues(config, athenaSourceDefinition);
  let client: AthenaClient | undefined;
  try {
    const s = athenaSettings(config);
    client = athenaClient(s);
    const sql = await readSql(client, s, options);
    let batch: Row[] = [];
    for await (const page of resultPages(client, s, sql, { signal: options.signal })) {
      for (const row of pageRows(page)) {
        batch.push(row);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length > 0) yield batch;
  } catch (err) {
    if (options.signal?.aborted) throw new ConnectorError("The read was cancelled.");
    throw new ConnectorError(redact(err instanceof ConnectorError ? err.message : describeAwsError(err), secrets), (err as { code?: string }).code);
  } finally {
    client?.destroy();
  }
}

export const athenaSource: SourceConnector = {
  definition: athenaSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (q) => void modelSelect(q, "trino"),
  read,
};
