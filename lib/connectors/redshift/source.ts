// Redshift source: the PostgreSQL source's wire-protocol pieces, limited to what Redshift shares
// (docs/connectors.md, "Redshift"): previews and portal-streamed reads in read-only transactions,
// bind parameters, the value model's type parsers. Not used: COPY … TO STDOUT (Redshift has no COPY
// to the client, so no pass-through text rows), row_to_json fingerprints (no such function),
// pg_catalog-based discovery (no attidentity, array_position…), EXPLAIN (FORMAT JSON).
import type { CheckResult, QueryResult, ReadOptions, Row, SourceConnector } from "../types";
import { safeCheck } from "../shared/errors";
import { sourceTablesCatalog } from "../shared/sql-catalog";
import { jsonSafeRow, modelSelect } from "../shared/sql";
import { describePgError, withClient, type PgSettings } from "../postgresql/connection";
import { withDescribedErrors } from "../shared/errors";
import { cursorBatches } from "../postgresql/cursor";
import { incrementalQuery, previewQuery } from "../postgresql/source";
import { listRedshiftColumns } from "./catalog";
import { tryRedshiftSettings, wireConfig } from "./config";
import { redshiftSourceDefinition } from "./definition";
import { countRedshiftRows } from "../postgresql/count";

const describe = (err: unknown, s?: PgSettings) => describePgError(err, s, "Redshift");

/** Rethrows driver errors as ConnectorErrors with the sentences check() gives. */
function described<T>(config: Row, fn: () => Promise<T>): Promise<T> {
  return withDescribedErrors(fn, (err) => describe(err, tryRedshiftSettings(config)));
}

/** `Redshift 1.0.12103` from Redshift's version(); the PostgreSQL server the tests use says so instead. */
export function serverName(version: string): string {
  const redshift = /Redshift \S+/.exec(version)?.[0];
  if (redshift) return redshift;
  return `${/^\S+ [\d.]+/.exec(version)?.[0] ?? version} (not a Redshift cluster: it speaks the same protocol)`;
}

async function check(config: Row): Promise<CheckResult> {
  let settings: PgSettings | undefined;
  return safeCheck(
    redshiftSourceDefinition,
    config,
    () =>
      withClient(wireConfig(config), async (client, s) => {
        settings = s;
        const { rows } = await client.query<{ version: string; schema_exists: boolean }>(
          "SELECT version() AS version, EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema_exists",
          [s.schema],
        );
        if (!rows[0].schema_exists) {
          return {
            ok: false,
            details: `Connected, but schema "${s.schema}" does not exist in database "${s.database}".`,
          };
        }
        return {
          ok: true,
          details: `Connected to ${serverName(rows[0].version)} at ${s.host}:${s.port}, database "${s.database}".`,
        };
      }),
    (err) => describe(err, settings ?? tryRedshiftSettings(config)),
  );
}

async function discover(config: Row) {
  return described(config, () =>
    withClient(wireConfig(config), async (client, s) =>
      sourceTablesCatalog((await listRedshiftColumns(client, s.schema)).values(), s.schema),
    ),
  );
}

async function query(config: Row, sql: string, limit: number): Promise<QueryResult> {
  // The PostgreSQL preview uses only what Redshift has: READ ONLY, SET LOCAL statement_timeout, a
  // bind parameter for the limit, pg_type and format_type for the column types.
  return described(config, () => previewQuery(wireConfig(config), sql, limit, "Redshift"));
}

async function* read(config: Row, options: ReadOptions): AsyncGenerator<Row[]> {
  const wire = await described(config, async () => wireConfig(config));
  // Without a fingerprint seed, the PostgreSQL source's query is the model wrapped as a subquery,
  // narrowed with `>= $1` and ordered by the cursor column: plain SQL that Redshift runs as it is.
  for await (const { rows } of cursorBatches<Row>(
    wire,
    options,
    incrementalQuery(options),
    undefined,
    "Redshift",
  ))
    yield rows.map(jsonSafeRow);
}

export const redshiftSource: SourceConnector = {
  definition: redshiftSourceDefinition,
  check,
  discover,
  query,
  checkQuery: (sql) => void modelSelect(sql, "redshift"),
  read,
  countRows: (config, options) => described(config, () => countRedshiftRows(wireConfig(config), options)),
};
