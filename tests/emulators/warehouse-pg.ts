// What the warehouse emulators (Snowflake SQL API, Databricks Statement Execution API) share: they
// run the statements they are sent on our real PostgreSQL test database, so reads and discovery
// are real. Each statement gets its own connection (session time zone UTC, the statement timeout
// the request asked for) and may be cancelled from another (pg_cancel_backend), as a warehouse
// cancels a running statement. Values come back as PostgreSQL's text; each emulator turns them into
// its vendor's wire format. Tests only.
import pg from "pg";

export interface PgColumn {
  name: string;
  oid: number;
  /** Type name (pg_type.typname), e.g. int4, numeric, _int4, timestamptz. */
  type: string;
  /** numeric(p,s): precision and scale; null when unconstrained or not numeric. */
  precision: number | null;
  scale: number | null;
}

export interface PgStatementResult {
  columns: PgColumn[];
  rows: (string | null)[][];
}

const RAW_TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

export class PgStatement {
  private client: pg.Client;
  private pid: number | undefined;
  constructor(private readonly databaseUrl: string) {
    this.client = new pg.Client({ connectionString: databaseUrl });
  }

  /** Runs `text` with `$n` parameters; rejects with PostgreSQL's error (its message and SQLSTATE). */
  async run(text: string, values: unknown[], timeoutSeconds: number): Promise<PgStatementResult> {
    await this.client.connect();
    try {
      const { rows: pidRows } = await this.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      this.pid = pidRows[0].pid;
      await this.client.query("SET TIME ZONE 'UTC'");
      await this.client.query(`SET statement_timeout = ${Math.max(0, Math.floor(timeoutSeconds * 1000))}`);
      const result = await this.client.query({ text, values, rowMode: "array", types: RAW_TEXT });
      const oids = [...new Set(result.fields.map((f) => f.dataTypeID))];
      const { rows: typeRows } = await this.client.query<{ oid: number; typname: string }>(
        "SELECT oid::int AS oid, typname FROM pg_type WHERE oid = ANY($1::oid[])",
        [oids],
      );
      const names = new Map(typeRows.map((t) => [Number(t.oid), t.typname]));
      const columns = result.fields.map((f): PgColumn => {
        const type = names.get(f.dataTypeID) ?? "text";
        const numeric = type === "numeric" && f.dataTypeModifier >= 4;
        return {
          name: f.name,
          oid: f.dataTypeID,
          type,
          precision: numeric ? ((f.dataTypeModifier - 4) >> 16) & 0xffff : null,
          scale: numeric ? (f.dataTypeModifier - 4) & 0xffff : null,
        };
      });
      return { columns, rows: result.rows as (string | null)[][] };
    } finally {
      await this.client.end().catch(() => undefined);
    }
  }

  /** Cancels the running statement from another connection. */
  async cancel(): Promise<void> {
    if (this.pid === undefined) return;
    const other = new pg.Client({ connectionString: this.databaseUrl });
    await other.connect();
    try {
      await other.query("SELECT pg_cancel_backend($1)", [this.pid]);
    } finally {
      await other.end();
    }
  }
}

/** `?` markers outside quotes as `$1`, `$2`… (Snowflake's positional bindings). */
export function positionalToPg(sql: string): string {
  let n = 0;
  return replaceOutsideQuotes(sql, /\?/g, () => `$${++n}`);
}

/** Applies `pattern` only to the parts of `sql` outside '…' and "…" (and `…`) quotes. */
export function replaceOutsideQuotes(sql: string, pattern: RegExp, replace: (match: string, ...groups: string[]) => string): string {
  const parts = sql.split(/('(?:[^'\\]|\\.|'')*'|"(?:[^"]|"")*"|`[^`]*`)/);
  return parts.map((part, i) => (i % 2 === 1 ? part : part.replace(pattern, replace as (substring: string, ...args: unknown[]) => string))).join("");
}

/** PostgreSQL array text parsed into a JSON array text (elements as their own JSON: numbers stay numbers). */
export function pgArrayJson(text: string, elementType: string): string {
  const parse = pg.types.getTypeParser(arrayOid(elementType)) as (v: string) => unknown;
  return JSON.stringify(parse(text));
}

function arrayOid(elementType: string): number {
  // int2[], int4[], int8[] (as text), float8[], numeric[] (as text), bool[], text[]
  const byElement: Record<string, number> = { int2: 1005, int4: 1007, int8: 1009, float4: 1021, float8: 1022, bool: 1000, text: 1009, varchar: 1009 };
  return byElement[elementType] ?? 1009;
}

/** Seconds since the epoch with 9 fraction digits, of PostgreSQL's `YYYY-MM-DD hh:mm:ss[.ffffff][+hh[:mm]]` in UTC. */
export function epochSecondsText(text: string): string {
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d+))?([+-]\d\d(?::?\d\d)?)?$/.exec(text);
  if (!m) return text;
  const offset = m[4] ? `${m[4].slice(0, 3)}:${m[4].slice(3).replace(":", "") || "00"}` : "Z";
  const ms = Date.parse(`${m[1]}T${m[2]}${offset}`);
  const nanos = BigInt(Math.floor(ms / 1000)) * 1_000_000_000n + BigInt((m[3] ?? "").padEnd(9, "0"));
  const abs = nanos < 0n ? -nanos : nanos;
  return `${nanos < 0n ? "-" : ""}${abs / 1_000_000_000n}.${(abs % 1_000_000_000n).toString().padStart(9, "0")}`;
}
