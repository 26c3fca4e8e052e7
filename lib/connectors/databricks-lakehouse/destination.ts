// Databricks Lakehouse destination: rows written to a Delta table of the configured catalog and
// schema through the SQL Statement Execution API 2.0 (the Databricks source's client: a 429 or 503
// waited out by its Retry-After, polling, cancel on timeout). A batch becomes few statements: one
// multi-row INSERT or MERGE (on the table's primary key) per action and column set, up to
// STATEMENT_ROWS rows each, keys unique within a MERGE (Databricks refuses a MERGE where two source
// rows match one target row). A statement is atomic, so when one fails on its data the rows are
// halved and tried again until the bad row fails alone with Databricks' message; errors about the
// table or the credential fail the whole group at once. Reference: docs.databricks.com (Statement
// Execution API, MERGE INTO, INSERT, DELETE FROM, information_schema).
import type { Catalog, CheckResult, DestinationConnector, Row, Stream, WriteOptions, WriteOutcome, WriteRecord } from "../types";
import { buildCatalog } from "../shared/catalog";
import { ConnectorError, errorMessage, safeCheck } from "../shared/errors";
import { redact, secretValues } from "../shared/secrets";
import { StatementApiError } from "../shared/statement-api";
import { executeStatement } from "../databricks/client";
import type { DatabricksConfig } from "../databricks/config";
import { databricksLakehouseDefinition, lakehouseConfig } from "./definition";
import { deleteStatement, insertStatement, mergeStatement, parameterText, presenceStatement, target, type Statement } from "./statements";
import { schemaTables, tableOf, type LakehouseTable } from "./tables";

/** Rows per statement: parameters stay in the hundreds and one bad row costs few halvings. */
export const STATEMENT_ROWS = 100;
/** Errors about the statement or the table, not a row: halving would not isolate anything. */
const NOT_A_ROW = /TABLE_OR_VIEW_NOT_FOUND|SCHEMA_NOT_FOUND|UNRESOLVED_COLUMN|PARSE_SYNTAX_ERROR|INSUFFICIENT_PERMISSIONS|PERMISSION_DENIED|does not exist|permission denied/i;

const secretsOf = (config: Row) => secretValues(config, databricksLakehouseDefinition);

async function run(cfg: DatabricksConfig, statement: Statement, signal?: AbortSignal): Promise<(string | null)[][]> {
  const result = await executeStatement(cfg, statement.sql, statement.parameters, signal);
  const rows: (string | null)[][] = [];
  for await (const chunk of result.chunks()) rows.push(...chunk);
  return rows;
}

async function check(config: Row, signal?: AbortSignal): Promise<CheckResult> {
  return safeCheck(databricksLakehouseDefinition, config, async () => {
    const cfg = lakehouseConfig(config);
    await run(cfg, { sql: "SELECT 1", parameters: {} }, signal);
    const tables = await schemaTables(cfg, signal, true);
    return { ok: true, details: `Connected to the SQL warehouse ${cfg.warehouseId}; ${cfg.catalog}.${cfg.schema} has ${tables.size} table${tables.size === 1 ? "" : "s"}.` };
  });
}

function columnSchema(type: string, nullable: boolean): Row {
  const kind = /^(TINYINT|SMALLINT|INT|BIGINT|BYTE|SHORT|LONG)/.test(type) ? "integer" : /^(FLOAT|DOUBLE|REAL)/.test(type) ? "number" : type === "BOOLEAN" ? "boolean" : "string";
  return { type: nullable ? [kind, "null"] : kind, ...(type === "DATE" ? { format: "date" } : /^TIMESTAMP/.test(type) ? { format: "date-time" } : {}) };
}

async function discover(config: Row, signal?: AbortSignal): Promise<Catalog> {
  try {
    const cfg = lakehouseConfig(config);
    const tables = await schemaTables(cfg, signal, true);
    const streams: Stream[] = [...tables.values()].map((t) => ({
      name: t.name,
      action: "create",
      url: `${cfg.catalog}.${cfg.schema}.${t.name}`,
      json_schema: { type: "object", properties: Object.fromEntries(t.columns.map((c) => [c.name, columnSchema(c.type, c.nullable)])), ...(t.primaryKey.length > 0 ? { required: t.primaryKey } : {}) },
      batch_support: true,
      batch_size: STATEMENT_ROWS,
      request_method: "POST",
      ...(t.primaryKey.length > 0 ? { primary_key: t.primaryKey } : {}),
    }));
    return buildCatalog(streams);
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretsOf(config)), (err as { code?: string }).code);
  }
}

/** Why a record cannot be written as sent (before any statement), or undefined. */
function problemOf(table: LakehouseTable, record: WriteRecord): string | undefined {
  const columns = new Map(table.columns.map((c) => [c.name, c]));
  const unknown = Object.keys(record.payload).filter((k) => !columns.has(k));
  if (unknown.length > 0) return `Unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => `"${c}"`).join(", ")} for table "${table.name}".`;
  if (record.action !== "insert") {
    if (table.primaryKey.length === 0) return `Table "${table.name}" has no primary key (a PRIMARY KEY constraint), so it only supports inserts (not ${record.action}).`;
    const missing = table.primaryKey.filter((k) => record.payload[k] === null || record.payload[k] === undefined);
    if (missing.length > 0) return `The payload has no value for the primary key column${missing.length > 1 ? "s" : ""} ${missing.map((c) => `"${c}"`).join(", ")}, needed for ${record.action}.`;
  }
  if (record.action !== "delete" && Object.keys(record.payload).length === 0) return "The payload is empty: there is nothing to write.";
  try {
    for (const [name, value] of Object.entries(record.payload)) parameterText(columns.get(name)!, value);
  } catch (err) {
    return errorMessage(err);
  }
  return undefined;
}

interface Group {
  action: WriteRecord["action"];
  columns: string[];
  records: WriteRecord[];
}

/** Records by action and column set, at most STATEMENT_ROWS each, keys unique within a group. */
function groupsOf(table: LakehouseTable, records: WriteRecord[]): Group[] {
  const open = new Map<string, Group>();
  const keysIn = new Map<Group, Set<string>>();
  const groups: Group[] = [];
  for (const record of records) {
    const columns = record.action === "delete" ? table.primaryKey : Object.keys(record.payload).sort();
    const id = `${record.action}\u0000${columns.join("\u0000")}`;
    const key = JSON.stringify(table.primaryKey.map((k) => record.payload[k]));
    let group = open.get(id);
    if (!group || group.records.length >= STATEMENT_ROWS || (record.action !== "insert" && keysIn.get(group)!.has(key))) {
      group = { action: record.action, columns, records: [] };
      open.set(id, group);
      keysIn.set(group, new Set());
      groups.push(group);
    }
    group.records.push(record);
    keysIn.get(group)!.add(key);
  }
  return groups;
}

function statementOf(cfg: DatabricksConfig, table: LakehouseTable, group: Group): Statement {
  const into = target(cfg.catalog, cfg.schema, table);
  switch (group.action) {
    case "insert":
      return insertStatement(into, table, group.columns, group.records);
    case "delete":
      return deleteStatement(into, table, group.records);
    default:
      return mergeStatement(into, table, group.columns, group.records, group.action === "update");
  }
}

/** Writes a group; a statement failing on its data is halved until the bad rows fail alone. */
async function writeGroup(cfg: DatabricksConfig, table: LakehouseTable, group: Group, secrets: string[], signal?: AbortSignal): Promise<WriteOutcome[]> {
  try {
    await run(cfg, statementOf(cfg, table, group), signal);
    return group.records.map((r) => ({ key: r.key, ok: true }));
  } catch (err) {
    const message = redact(errorMessage(err), secrets);
    if (err instanceof StatementApiError) {
      // 429 after the client's own waits, 5xx: the engine retries later; 401/403: nothing a row can change.
      const retryable = err.status === 429 || err.status >= 500;
      return group.records.map((r) => ({ key: r.key, ok: false, error: message, status: err.status, retryable }));
    }
    const code = (err as { code?: string }).code;
    if (code !== "FAILED") return group.records.map((r) => ({ key: r.key, ok: false, error: message, status: 0, retryable: true }));
    if (group.records.length === 1 || NOT_A_ROW.test(message)) return group.records.map((r) => ({ key: r.key, ok: false, error: message, retryable: false }));
    const half = Math.ceil(group.records.length / 2);
    const first = await writeGroup(cfg, table, { ...group, records: group.records.slice(0, half) }, secrets, signal);
    const second = await writeGroup(cfg, table, { ...group, records: group.records.slice(half) }, secrets, signal);
    return [...first, ...second];
  }
}

async function write(config: Row, records: WriteRecord[], options: WriteOptions): Promise<WriteOutcome[]> {
  const secrets = secretsOf(config);
  let cfg: DatabricksConfig;
  let table: LakehouseTable;
  try {
    cfg = lakehouseConfig(config);
    table = await tableOf(cfg, options.stream.name, options.signal);
  } catch (err) {
    const status = err instanceof StatementApiError ? err.status : undefined;
    const retryable = status === undefined ? (err as { code?: string }).code !== undefined && (err as { code?: string }).code !== "FAILED" : status === 429 || status >= 500;
    return records.map((r) => ({ key: r.key, ok: false, error: redact(errorMessage(err), secrets), ...(status ? { status } : {}), retryable }));
  }
  const outcomes: WriteOutcome[] = [];
  const valid: WriteRecord[] = [];
  for (const record of records) {
    const problem = problemOf(table, record);
    if (problem) outcomes.push({ key: record.key, ok: false, error: problem, retryable: false });
    else valid.push(record);
  }
  for (const group of groupsOf(table, valid)) outcomes.push(...(await writeGroup(cfg, table, group, secrets, options.signal)));
  return outcomes;
}

/** Which keys have a row in the table (the update and insert write modes ask). */
async function existingKeys(config: Row, stream: Stream, keys: Row[], signal?: AbortSignal): Promise<boolean[]> {
  const found = keys.map(() => false);
  if (keys.length === 0) return found;
  try {
    const cfg = lakehouseConfig(config);
    const table = await tableOf(cfg, stream.name, signal);
    if (table.primaryKey.length === 0) throw new ConnectorError(`Table "${table.name}" has no primary key, so the presence of a row cannot be checked.`);
    const into = target(cfg.catalog, cfg.schema, table);
    for (let start = 0; start < keys.length; start += STATEMENT_ROWS) {
      const chunk = keys.slice(start, start + STATEMENT_ROWS);
      for (const [i] of await run(cfg, presenceStatement(into, table, chunk), signal)) found[start + Number(i)] = true;
    }
    return found;
  } catch (err) {
    throw new ConnectorError(redact(errorMessage(err), secretsOf(config)), (err as { code?: string }).code);
  }
}

export const databricksLakehouseDestination: DestinationConnector = {
  definition: databricksLakehouseDefinition,
  check,
  discover,
  write,
  existingKeys,
};
