// PostgreSQL source: previews and streaming reads of model queries, read-only.
import type pg from "pg";
import type { CheckResult, FingerprintedBatch, FingerprintOptions, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { safeCheck } from "../shared/errors";
import { sourceTablesCatalog } from "../shared/sql-catalog";
import { jsonSafeRow, jsonSafeValue, modelSelect, subquery } from "../shared/sql";
import { pgQueryError } from "../shared/sql-position";
import { oneStatement } from "./one-statement";
import {
  described,
  describePgError,
  jsonSafeTypes,
  listColumns,
  typeNames,
  quoteIdent,
  rawTextTypes,
  trySettings,
  withClient,
  type PgSettings,
} from "./connection";
import { postgresqlSourceDefinition } from "./definition";
import { postgresqlTextRows } from "./text-rows";
import { bentBeforeCondition } from "./values";
import { countPostgresqlRows, readFrom } from "./count";
import { cursorBatches } from "./cursor";
import { postgresqlLive } from "./live";

/** Connects, reports the server version and checks that the schema exists. Shared with the destination. */
export async function checkPostgresql(config: Row): Promise<CheckResult> {
  let settings: PgSettings | undefined;
  return safeCheck(
    postgresqlSourceDefinition,
    config,
    () =>
      withClient(config, async (client, s) => {
        settings = s;
        const { rows } = await client.query<{ version: string; schema_exists: boolean }>(
          "SELECT version() AS version, EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema_exists",
          [s.schema],
        );
        if (!rows[0].schema_exists) {
          return { ok: false, details: `Connected, but schema "${s.schema}" does not exist in database "${s.database}".` };
        }
        const version = /^\S+ [\d.]+/.exec(rows[0].version)?.[0] ?? rows[0].version;
        const warning = await serverFileWarning(client, s.user);
        return { ok: true, details: `Connected to ${version} at ${s.host}:${s.port}, database "${s.database}".${warning}` };
      }),
    (err) => describePgError(err, settings ?? trySettings(config)),
  );
}

/**
 * A sentence (with a leading space) when the credentials are a superuser's or may read or write the
 * server's files or run its programs: the check still passes, but whoever may write this
 * workspace's models then holds those powers too, beyond what a read-only transaction and the
 * model query check stop. "" otherwise.
 */
async function serverFileWarning(client: pg.ClientBase, username: string): Promise<string> {
  const { rows } = await client.query<{ superuser: boolean; roles: string[] }>(
    `SELECT r.rolsuper AS superuser,
            ARRAY(SELECT g FROM unnest(ARRAY['pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program']) AS g
                   WHERE pg_has_role(current_user, g, 'MEMBER')) AS roles
       FROM pg_roles r WHERE r.rolname = current_user`,
  );
  const row = rows[0];
  if (!row || (!row.superuser && row.roles.length === 0)) return "";
  const what = row.superuser ? "a superuser" : `a member of ${row.roles.join(", ")}`;
  return ` Warning: "${username}" is ${what}, so anyone who may write this workspace's models can reach the database server's files through it; connect with a role that can only read the tables the models need.`;
}

/** A model query's preview; `product` names the server in error sentences (Redshift shares this). */
export async function previewQuery(config: Row, sql: string, limit: number, product?: string): Promise<QueryResult> {
  const inner = modelSelect(sql, "postgresql");
  return described(
    config,
    () =>
      withClient(config, async (client, s) => {
        await client.query("BEGIN TRANSACTION READ ONLY");
        try {
          // SET LOCAL cannot take a parameter; the value is an integer we computed.
          await client.query(`SET LOCAL statement_timeout = ${Math.floor(s.queryTimeoutMs)}`);
          const text = `SELECT * FROM ${subquery(inner)} AS q LIMIT $1`;
          const result = await client.query(text, [Math.max(0, Math.floor(limit))]).catch((err: unknown) => {
            // The error's position is in the wrapped text; say where in the user's query it is.
            throw pgQueryError(err, sql, inner, text.indexOf("(") + 1, (e) => describePgError(e, s, product));
          });
          const names = await typeNames(client, [...new Set(result.fields.map((f) => f.dataTypeID))]);
          return {
            columns: result.fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? String(f.dataTypeID) })),
            rows: result.rows.map(jsonSafeRow),
          };
        } finally {
          await client.query("ROLLBACK").catch(() => undefined);
        }
      }),
    product,
  );
}

/**
 * The model query, narrowed to rows at or after the saved cursor when reading incrementally. With a
 * fingerprint seed each row comes after its fingerprint: md5 of the seed and the row's JSON as
 * PostgreSQL writes it (`row_to_json`), so the server hashes the rows and we parse only those sent.
 */
export function incrementalQuery(options: ReadOptions, fingerprintSeed?: string, repair = ""): { text: string; values: unknown[] } {
  // Wrapped even without a cursor or fingerprint: only a SELECT parses as a subquery.
  const { from, values, cursor } = readFrom(options);
  if (cursor === null && fingerprintSeed === undefined) return { text: `SELECT * FROM ${from}`, values };
  const order = cursor === null ? "" : ` ORDER BY ${cursor}`;
  let select = "*";
  if (fingerprintSeed !== undefined) {
    values.push(fingerprintSeed);
    // `subquery.*` is the whole row even when the model has a column named "subquery".
    select = `md5($${values.length}::text || row_to_json(subquery.*)::text${repair}) AS fingerprint, subquery.*`;
  }
  return { text: `SELECT ${select} FROM ${from}${order}`, values };
}

/**
 * Appended to a row's fingerprint text: a mark on rows holding a value the engine carried bent before
 * the value model (values.ts: bentBeforeCondition), so their fingerprints change once and the next
 * run sends them again, exactly; every other row keeps its fingerprint. Empty when no column can.
 */
async function repairMark(client: pg.Client, options: ReadOptions): Promise<string> {
  // Extended protocol: one statement, whatever the text holds.
  const { fields } = await client.query(oneStatement(`SELECT * FROM ${subquery(modelSelect(options.query, "postgresql"))} AS subquery LIMIT 0`));
  const names = await typeNames(client, [...new Set(fields.map((f) => f.dataTypeID))]);
  const conditions: string[] = [];
  for (const f of fields) {
    // A repeated name cannot be referred to; its values keep their fingerprints.
    if (fields.filter((g) => g.name === f.name).length > 1) continue;
    const condition = bentBeforeCondition(names.get(f.dataTypeID) ?? "");
    if (condition) conditions.push(condition.replaceAll("$c", `subquery.${quoteIdent(f.name)}`));
  }
  return conditions.length === 0 ? "" : ` || CASE WHEN ${conditions.map((c) => `coalesce(${c}, false)`).join(" OR ")} THEN ':exact' ELSE '' END`;
}

type Parser = (value: string) => unknown;
async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  for await (const { rows } of cursorBatches<Row>(config, options, incrementalQuery(options))) yield rows.map(jsonSafeRow);
}

/** How to turn a raw row of one result into what read() yields, with the parsers read() uses. */
interface RowShape {
  names: string[];
  parsers: Parser[];
  /** Built like pg's Result builds its rows, so ours have the same keys in the same order. */
  empty: Row;
  /** The primary key's column; -1 when the query has none. */
  keyIndex: number;
}

function rowShape(fields: pg.FieldDef[], primaryKey: string): RowShape {
  const template = Object.create(null) as Row;
  const names: string[] = [];
  const parsers: Parser[] = [];
  // Column 0 is the fingerprint.
  for (let i = 1; i < fields.length; i++) {
    template[fields[i].name] = null;
    names[i] = fields[i].name;
    parsers[i] = jsonSafeTypes.getTypeParser(fields[i].dataTypeID, fields[i].format === "binary" ? "binary" : "text") as Parser;
  }
  // With repeated names the last column wins, as in pg's rows.
  const keyIndex = names.lastIndexOf(primaryKey);
  return { names, parsers, empty: { ...template }, keyIndex };
}

async function* readFingerprinted(config: Row, options: ReadOptions & { fingerprint: FingerprintOptions }): AsyncGenerator<FingerprintedBatch> {
  const query = async (client: pg.Client) => incrementalQuery(options, options.fingerprint.seed, await repairMark(client, options));
  let shape: RowShape | undefined;
  let shapeOf: pg.FieldDef[] | undefined;
  const batches = cursorBatches<(string | null)[]>(config, options, query, { rowMode: "array", types: rawTextTypes });
  for await (const { rows, fields } of batches) {
    if (!shape || shapeOf !== fields) {
      shape = rowShape(fields, options.fingerprint.primaryKey);
      shapeOf = fields;
    }
    const { names, parsers, empty, keyIndex } = shape;
    const fingerprints = new Array<string>(rows.length);
    const keyValues = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const raw = rows[i];
      fingerprints[i] = raw[0] as string;
      const key = keyIndex < 0 ? undefined : raw[keyIndex];
      keyValues[i] = typeof key === "string" ? jsonSafeValue(parsers[keyIndex](key)) : key;
    }
    yield {
      length: rows.length,
      keyValues,
      fingerprints,
      row(index: number): Row {
        const raw = rows[index];
        const row: Row = { ...empty };
        for (let c = 1; c < raw.length; c++) {
          const value = raw[c];
          row[names[c]] = value === null ? null : parsers[c](value);
        }
        return jsonSafeRow(row);
      },
    };
  }
}

async function discover(config: Row) {
  return described(config, () =>
    withClient(config, async (client, s) => {
      const tables = await listColumns(client, s.schema);
      return sourceTablesCatalog(tables.values(), s.schema);
    }),
  );
}

export const postgresqlSource: SourceConnector = {
  definition: postgresqlSourceDefinition,
  check: checkPostgresql,
  discover,
  query: (config, sql, limit) => previewQuery(config, sql, limit),
  checkQuery: (query) => void modelSelect(query, "postgresql"),
  read,
  readFingerprinted,
  textRows: postgresqlTextRows,
  countRows: countPostgresqlRows,
  live: postgresqlLive,
};
