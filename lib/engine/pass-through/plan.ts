// Whether a run reads its rows as COPY lines, and how. Pass-through: the destination upserts the lines
// as they are, and the engine only splits out the key, hashes the line, picks the mapped fields and
// keeps the line as the record — no row object, no JSON per row. Only where that gives exactly what
// the JSON path would write: standard mappings of plain columns, type pairs whose text form converts
// to the same value, an upsert by the destination's key, no rate limit, no field left out when empty
// (null_policy skip). Otherwise, mapped lines: keyed, hashed and recorded the same way, and only the
// lines to send are decoded into rows for the mapping and the destination's write (send-batch.ts).
// Anything else takes the JSON path (run-execution.ts).
import "server-only";
import type { ReadOptions, TextColumn, TextRowsDestination, TextRowsSource, TextTarget } from "@/lib/connectors/types";
import { db } from "@/lib/db/kysely";
import type { RunContext } from "../context";
import { engineSettings } from "../settings";
import type { RecordColumns } from "./record-columns";
import { passesThrough } from "@/lib/sync-rules/write-mode";
import { readColumn, type MappedField } from "@/lib/sync-rules/mapping";

export interface PassThroughPlan {
  source: TextRowsSource;
  /** Null for mapped lines: each line to send is decoded and goes through the mapping and `write()`. */
  destination: TextRowsDestination | null;
  /** The source's columns: the fields of every line, and how a stored line is read back. */
  recordColumns: RecordColumns;
  /** Destination columns, in the order of the fields of the lines sent. */
  destinationColumns: string[];
  /** Per destination column, the source field it takes; undefined when the line goes as it is. */
  pick?: number[];
  /**
   * Instead of `pick` when some column is computed (a template, a static value, a column whose text
   * differs): per destination column, the source field it takes or how to write the mapped value.
   */
  compose?: ComposedColumn[];
  /**
   * With `compose`: the source fields its computed columns read, and their columns (each line to send
   * decodes only these); undefined when they may read any (a template Liquid renders).
   */
  composeReads?: { fields: number[]; columns: TextColumn[] };
  keyIndex: number;
  /** The cursor column's field (incremental reads), -1 without one. */
  cursorIndex: number;
  /** Seeds the fingerprint of a line (another text than the JSON path's, so another seed). */
  seed: string;
}

/** A source field's index, or a mapping's value written as the destination's write() would write it. */
export type ComposedColumn = number | { field: MappedField; text: (value: unknown) => string };

const INTEGERS = ["smallint", "integer", "bigint"];
const TEXTS = ["text", "character varying", "character"];
/**
 * Types whose COPY text, read back by the same type, is the value the JSON path writes: with the value
 * model (lib/connectors/postgresql/values.ts) the JSON path writes each of these exactly too.
 */
const EXACT = [
  "boolean",
  "numeric",
  "real",
  "double precision",
  "date",
  "timestamp without time zone",
  "timestamp with time zone",
  "uuid",
  "interval",
  "time without time zone",
  "time with time zone",
  "json",
  "jsonb",
  "bytea",
  "inet",
  "cidr",
  "macaddr",
];
/** Key types whose text is the key the JSON path derives (diff.ts:keyText of the parsed value). */
const KEY_TYPES = [...INTEGERS, ...TEXTS, "numeric", "uuid"];

/** A source column's text goes into a destination column of this type as the JSON path's value would. */
export function sameText(source: string, destination: string): boolean {
  if (INTEGERS.includes(source)) return [...INTEGERS, "numeric", "text", "character varying"].includes(destination);
  if (TEXTS.includes(source)) return TEXTS.includes(destination);
  if (source !== destination) return false;
  // An array of a type goes as its array literal, element by element the type's own text.
  const element = source.endsWith("[]") ? source.slice(0, -2) : source;
  return EXACT.includes(element) || (element !== source && (INTEGERS.includes(element) || TEXTS.includes(element)));
}

/** Destination column → source column, or undefined when a mapping is not a plain column copy. */
function columnPairs(ctx: RunContext, sourceNames: string[]): [string, string][] | undefined {
  const { mapping } = ctx;
  if (mapping.identity) return sourceNames.map((n) => [n, n]);
  // A line carries every column, nulls too: a field to leave out when empty needs the JSON path.
  if (mapping.skipsEmpty) return undefined;
  const pairs: [string, string][] = [];
  for (const m of mapping.mappings) {
    if (m.mapping_type !== "standard" || typeof m.from !== "string" || !sourceNames.includes(m.from)) return undefined;
    if (/[.[\]]/.test(m.to)) return undefined; // a nested path builds an object: JSON path
    pairs.push([m.to, m.from]);
  }
  return new Set(pairs.map(([to]) => to)).size === pairs.length ? pairs : undefined;
}

/** How a run may read as lines: whether the sync's states hold line fingerprints (see statesHoldLines). */
export interface LineState {
  /** The sync tracked no row when the attempt (or plan) began. */
  noStates: boolean;
  /** The run being executed; 0 for a plan of a run that does not exist yet. */
  runId: number;
  /** Its attempts so far, this one included (sync_runs.attempts); 0 for a plan. */
  attempts: number;
}

/**
 * The lines plan of a run: pass-through where source, destination and mapping allow it, else mapped
 * lines where the source reads lines and the sync's states can take their fingerprints; undefined for
 * the JSON path.
 */
export async function planPassThrough(ctx: RunContext, options: ReadOptions, state: LineState): Promise<PassThroughPlan | undefined> {
  const source = ctx.source.textRows;
  if (!engineSettings.passThrough || !source) return undefined;
  // Lines go in as upserts: only for the modes that write every row that way.
  const upserts = passesThrough(ctx.sync.writeMode) && (ctx.stream.primary_key?.length ?? 0) > 0 && !(ctx.rate.limit > 0);
  const textRows = upserts ? ctx.destination.textRows : undefined;
  const [columns, target] = await Promise.all([source.columns(ctx.sourceConfig, options), textRows?.target(ctx.destinationConfig, ctx.stream)]);
  if (!columns) return undefined;
  const names = columns.map((c) => c.name);
  if (new Set(names).size !== names.length) return undefined;
  const keyIndex = names.indexOf(ctx.model.primaryKey);
  if (keyIndex < 0 || !KEY_TYPES.includes(columns[keyIndex].type)) return undefined;
  const cursorIndex = options.cursorField ? names.indexOf(options.cursorField) : -1;
  if (options.cursorField && cursorIndex < 0) return undefined;
  const lines = { source, keyIndex, cursorIndex, seed: `${ctx.fingerprintSeed}:copy-text` };
  const connector = ctx.source.definition.name;
  const through = textRows && target && passThroughColumns(ctx, columns, target);
  if (through) return { ...lines, ...through, destination: textRows, recordColumns: { connector, columns } };
  // Only lines from here on: a sync whose states the JSON path wrote keeps it (see statesHoldLines).
  if (!(await statesHoldLines(ctx.sync.id, state))) return undefined;
  const composed = textRows && target && composedColumns(ctx, columns, target, textRows);
  if (composed) return { ...lines, ...composed, destination: textRows, recordColumns: { connector, columns } };
  return { ...lines, destination: null, destinationColumns: [], recordColumns: { connector, columns, mapped: true } };
}

/** The destination columns and picked fields of a pass-through, or undefined when it cannot be one. */
function passThroughColumns(ctx: RunContext, columns: TextColumn[], target: TextTarget): Pick<PassThroughPlan, "destinationColumns" | "pick"> | undefined {
  if (!target.writable) return undefined;
  const names = columns.map((c) => c.name);
  const pairs = columnPairs(ctx, names);
  if (!pairs) return undefined;
  const typeOf = (list: TextColumn[], name: string) => list.find((c) => c.name === name)?.type;
  for (const [to, from] of pairs) {
    const destinationType = typeOf(target.columns, to);
    if (destinationType === undefined || !sameText(typeOf(columns, from) as string, destinationType)) return undefined;
  }
  if (!target.primaryKey.every((k) => pairs.some(([to]) => to === k))) return undefined;
  const pick = pairs.map(([, from]) => names.indexOf(from));
  const whole = pick.length === names.length && pick.every((p, i) => p === i);
  return { destinationColumns: pairs.map(([to]) => to), pick: whole ? undefined : pick };
}

/**
 * Pass-through with computed columns: every mapping writes a plain column of the table (no nested
 * field, no field left out when empty), and the destination says how its write() writes each value
 * that is not a source field with the same text. The mapping runs on each decoded line to send.
 */
function composedColumns(
  ctx: RunContext,
  columns: TextColumn[],
  target: TextTarget,
  destination: TextRowsDestination,
): Pick<PassThroughPlan, "destinationColumns" | "compose" | "composeReads"> | undefined {
  const { mapping } = ctx;
  if (!target.writable || !destination.valueText || mapping.skipsEmpty) return undefined;
  const names = columns.map((c) => c.name);
  const entries = mapping.identity ? names.map((n) => ({ from: n, to: n, mapping_type: "standard" })) : mapping.mappings;
  const fields = mapping.identity ? names.map(columnField) : mapping.fields;
  const to = entries.map((m) => m.to);
  if (new Set(to).size !== to.length || !target.primaryKey.every((k) => to.includes(k))) return undefined;
  // write() sends a row with an array column as JSON, and the other values with it (not as COPY text).
  if (target.columns.some((c) => to.includes(c.name) && c.type.endsWith("]"))) return undefined;
  const compose: ComposedColumn[] = [];
  const reads = new Set<string>();
  let readsAny = false;
  for (const [i, m] of entries.entries()) {
    if (/[.[\]]/.test(m.to)) return undefined; // a nested path builds an object: not a column
    const type = target.columns.find((c) => c.name === m.to)?.type;
    if (type === undefined) return undefined;
    const field = m.mapping_type === "standard" && typeof m.from === "string" ? names.indexOf(m.from) : -1;
    if (field >= 0 && sameText(columns[field].type, type)) compose.push(field);
    else {
      const text = destination.valueText(type);
      if (!text) return undefined;
      compose.push({ field: fields[i], text });
      if (fields[i].reads) for (const name of fields[i].reads) reads.add(name);
      else readsAny = true;
    }
  }
  const read = names.flatMap((name, i) => (reads.has(name) ? [i] : []));
  const composeReads = readsAny ? undefined : { fields: read, columns: read.map((i) => columns[i]) };
  return { destinationColumns: to, compose, composeReads };
}

/** An identity mapping's field: the column as it is. */
function columnField(name: string): MappedField {
  return { to: name, reads: [name], value: (row) => readColumn(row, name) ?? null };
}

/**
 * Whether lines keep the sync's fingerprints: a line's differs from the JSON path's of the same row,
 * so a sync whose states the JSON path wrote stays on it (switching would send every row once). Lines
 * when an earlier attempt of this run read them; else, when nothing is tracked yet and no earlier
 * attempt can have sent rows on the JSON path (a delivery ledger keys them by fingerprint); else when
 * the sync's latest successful general run read lines (its records' columns are stored).
 */
async function statesHoldLines(syncId: number, { noStates, runId, attempts }: LineState): Promise<boolean> {
  if (noStates && attempts <= 1) return true;
  const row = await db()
    .selectFrom("sync_runs")
    .select((eb) => eb("record_columns", "is not", null).as("lines"))
    .where("sync_id", "=", syncId)
    .where("sync_run_type", "=", "general")
    .where((eb) => {
      const claimed = eb.and([eb("id", "=", runId), eb("record_columns", "is not", null)]);
      return noStates ? claimed : eb.or([claimed, eb("status", "=", "success")]);
    })
    .orderBy((eb) => eb.case().when("id", "=", runId).then(0).else(1).end())
    .orderBy("created_at", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.lines === true;
}
