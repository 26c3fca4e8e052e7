// Field mapping: turns a source row into the destination payload according to sync.configuration.
// Pure: compiled once per run (templates parsed once), applied per row; a row that cannot be mapped
// fails alone with a MappingError, never the run.
import { compileFastTemplate, compileFastText, FALLBACK, type FastTemplate } from "./fast-template";
import { compileTemplate, formatTimestamp, liquidEngine, TemplateError, type CompiledTemplate } from "./templates";

export type MappingType = "standard" | "static" | "template";

/**
 * What an empty value does to its destination field: `write` sends it (null; the default), `skip`
 * leaves the field out of the payload, so the destination keeps the value it has. Empty: null or
 * missing, and for a template also a render that is only whitespace (a template renders null as "").
 */
export type NullPolicy = "write" | "skip";
export const NULL_POLICIES: readonly NullPolicy[] = ["write", "skip"];

/** One entry of sync.configuration. `from` is a column (standard), a literal (static) or a Liquid template. */
export interface FieldMapping {
  from: unknown;
  to: string;
  mapping_type: MappingType;
  /** Absent means `write`. */
  null_policy?: NullPolicy;
}

export class MappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MappingError";
  }
}

/** A configuration that cannot be used at all (bad shape, template that does not parse). */
export class MappingConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MappingConfigurationError";
  }
}

const MAPPING_TYPES: readonly MappingType[] = ["standard", "static", "template"];
const FORBIDDEN_SEGMENTS = new Set(["__proto__", "prototype", "constructor"]);

/**
 * Accepts the array form `[{from, to, mapping_type}]` and the older object form
 * `{source_column: "dest.path"}` (each entry a standard mapping). null/undefined/{} mean "no mapping".
 */
export function normalizeConfiguration(configuration: unknown): FieldMapping[] {
  if (configuration === null || configuration === undefined) return [];
  if (Array.isArray(configuration)) {
    return configuration.map((entry, i) => {
      if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
        throw new MappingConfigurationError(`Mapping ${i + 1} must be an object with from, to and mapping_type.`);
      }
      const e = entry as Record<string, unknown>;
      const type = (e.mapping_type ?? "standard") as MappingType;
      if (!MAPPING_TYPES.includes(type)) {
        throw new MappingConfigurationError(
          `Mapping ${i + 1} has mapping_type "${String(e.mapping_type)}"; use standard, static or template.`,
        );
      }
      if (typeof e.to !== "string" || e.to.trim() === "") {
        throw new MappingConfigurationError(`Mapping ${i + 1} needs a destination field in "to".`);
      }
      if (type !== "static" && (typeof e.from !== "string" || e.from === "")) {
        throw new MappingConfigurationError(`Mapping ${i + 1} (${type}) needs a non-empty string in "from".`);
      }
      if (e.null_policy !== undefined && e.null_policy !== null && !NULL_POLICIES.includes(e.null_policy as NullPolicy)) {
        throw new MappingConfigurationError(
          `Mapping ${i + 1} has null_policy "${String(e.null_policy)}"; use "write" (send empty values as null) or "skip" (leave the field out so the destination keeps its value).`,
        );
      }
      const mapping: FieldMapping = { from: e.from, to: e.to.trim(), mapping_type: type };
      if (e.null_policy === "skip") mapping.null_policy = "skip";
      return mapping;
    });
  }
  if (typeof configuration === "object") {
    return Object.entries(configuration as Record<string, unknown>).map(([from, to]) => {
      if (typeof to !== "string" || to.trim() === "") {
        throw new MappingConfigurationError(`The mapping of "${from}" must name a destination field.`);
      }
      return { from, to: to.trim(), mapping_type: "standard" as const };
    });
  }
  throw new MappingConfigurationError("The mapping configuration must be an array of {from, to, mapping_type}.");
}

type Segment = { key: string; append: boolean };

/** `items[].sku` → [{key: "items", append: true}, {key: "sku", append: false}]. */
export function parsePath(path: string): Segment[] {
  const segments = path.split(".").map((raw) => {
    const append = raw.endsWith("[]");
    const key = append ? raw.slice(0, -2) : raw;
    if (key === "" || key.includes("[") || key.includes("]")) {
      throw new MappingConfigurationError(`The destination path "${path}" is not valid (segment "${raw}").`);
    }
    if (FORBIDDEN_SEGMENTS.has(key)) throw new MappingConfigurationError(`The destination path "${path}" uses a reserved name.`);
    return { key, append };
  });
  return segments;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Sets `value` at `segments` in `target`. An `[]` segment appends to the array, except that a
 * following field joins the last element while that element does not have it yet, so
 * `items[].sku` + `items[].qty` build one item `{sku, qty}`.
 */
export function setPath(target: Record<string, unknown>, segments: Segment[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (let i = 0; i < segments.length; i++) {
    const { key, append } = segments[i];
    const last = i === segments.length - 1;
    if (!append) {
      if (last) {
        node[key] = value;
        return;
      }
      if (!isPlainObject(node[key])) node[key] = {};
      node = node[key] as Record<string, unknown>;
      continue;
    }
    if (!Array.isArray(node[key])) node[key] = [];
    const list = node[key] as unknown[];
    if (last) {
      list.push(value);
      return;
    }
    const nextKey = segments[i + 1].key;
    const tail = list[list.length - 1];
    if (isPlainObject(tail) && !(nextKey in tail)) {
      node = tail;
    } else {
      const fresh: Record<string, unknown> = {};
      list.push(fresh);
      node = fresh;
    }
  }
}

/** Reads a column; a dotted name that is not itself a column walks into nested JSON. */
export function readColumn(row: Record<string, unknown>, from: string): unknown {
  if (Object.prototype.hasOwnProperty.call(row, from)) return row[from];
  if (!from.includes(".")) return null;
  let node: unknown = row;
  for (const part of from.split(".")) {
    if (!isPlainObject(node) || !Object.prototype.hasOwnProperty.call(node, part)) return null;
    node = node[part];
  }
  return node === undefined ? null : node;
}

export interface CompiledMapping {
  mappings: FieldMapping[];
  /** Some field is left out of the payload when its value is empty (null_policy skip). */
  skipsEmpty: boolean;
  /** True when the configuration is empty: the row is sent as is. */
  identity: boolean;
  /** Templates rendered by plain functions (fast-template.ts) rather than by Liquid, of all templates. */
  plainTemplates: { plain: number; total: number };
  /** Maps one row; throws MappingError naming the failing field. */
  map(row: Record<string, unknown>, now?: Date): Record<string, unknown>;
  /** Each mapping alone, in order (pass-through computes some columns only, from only what they read). */
  fields: MappedField[];
}

/** One mapping of a compiled configuration. */
export interface MappedField {
  to: string;
  /** The row's columns its value may read; undefined when any (a template Liquid renders). */
  reads: readonly string[] | undefined;
  /** The value map() writes at `to` (undefined as null); throws MappingError as map() does. */
  value(row: Record<string, unknown>, clock: RowClock): unknown;
}

export interface CompileOptions {
  /** Render every template with Liquid (the bench's "before", and the tests' reference). */
  liquidOnly?: boolean;
}

/** The row being mapped: its time, taken once on first use and shared by all its templates. */
export interface RowClock {
  now: Date | undefined;
}

/** Writes one field of the payload (or leaves it out, when its null_policy says so). */
type FieldStep = (row: Record<string, unknown>, clock: RowClock, payload: Record<string, unknown>) => void;

/** Parses paths and templates once. Throws MappingConfigurationError when the configuration is unusable. */
export function compileMapping(configuration: unknown, options: CompileOptions = {}): CompiledMapping {
  const mappings = normalizeConfiguration(configuration);
  const plainTemplates = { plain: 0, total: 0 };
  const fields: MappedField[] = [];
  const steps = mappings.map((mapping) => {
    const { value, reads } = valueOf(mapping, options, plainTemplates);
    fields.push({ to: mapping.to, reads, value: (row, clock) => value(row, clock) ?? null });
    const set = setterOf(parsePath(mapping.to));
    const skip = mapping.null_policy === "skip";
    const step: FieldStep = (row, clock, payload) => {
      const v = value(row, clock);
      if (skip && isEmpty(v, mapping.mapping_type)) return;
      set(payload, v === undefined ? null : v);
    };
    return step;
  });
  return {
    mappings,
    identity: steps.length === 0,
    skipsEmpty: mappings.some((m) => m.null_policy === "skip"),
    plainTemplates,
    fields,
    map(row, now) {
      if (steps.length === 0) return { ...row };
      const clock: RowClock = { now };
      const payload: Record<string, unknown> = {};
      for (const step of steps) step(row, clock, payload);
      return payload;
    },
  };
}

type ValueOf = (row: Record<string, unknown>, clock: RowClock) => unknown;

/** How one mapping reads its value from a row, built once per run, and the columns it reads (undefined: any). */
function valueOf(
  mapping: FieldMapping,
  options: CompileOptions,
  counts: { plain: number; total: number },
): { value: ValueOf; reads: string[] | undefined } {
  switch (mapping.mapping_type) {
    case "standard": {
      const from = mapping.from as string;
      // A dotted name that is not a column walks into its first part (readColumn).
      return { value: (row) => readColumn(row, from), reads: [...new Set([from, from.split(".")[0]])] };
    }
    case "static": {
      const value = mapping.from === undefined ? null : mapping.from;
      return { value: () => value, reads: [] };
    }
    case "template": {
      let template: CompiledTemplate;
      try {
        template = compileTemplate(String(mapping.from));
      } catch (err) {
        throw new MappingConfigurationError(`Mapping to "${mapping.to}": ${(err as Error).message}`);
      }
      counts.total++;
      const render = (row: Record<string, unknown>, clock: RowClock) => {
        try {
          return template.render(row, (clock.now ??= new Date()));
        } catch (err) {
          const message = err instanceof TemplateError ? err.message : String(err);
          throw new MappingError(`Mapping to "${mapping.to}": ${message}`);
        }
      };
      const reads = new Set<string>();
      const fast = options.liquidOnly ? undefined : compileFast(template, reads);
      // Liquid may read any column; a plain function reads only the ones it looks up (so does its fallback).
      if (!fast) return { value: render, reads: undefined };
      counts.plain++;
      const value: ValueOf = (row, clock) => {
        const out = fast(row, () => formatTimestamp((clock.now ??= new Date())));
        return out === FALLBACK ? render(row, clock) : out;
      };
      return { value, reads: [...reads] };
    }
  }
}

/** The plain function of a template, when its shape is one fast-template.ts compiles. */
function compileFast(template: CompiledTemplate, reads: Set<string>): FastTemplate | undefined {
  if (template.expression) return compileFastTemplate(liquidEngine(), template.expression, reads);
  return template.templates ? compileFastText(liquidEngine(), template.templates, reads) : undefined;
}

/** setPath with the path parsed once; a plain field name is a plain assignment. */
function setterOf(path: Segment[]): (payload: Record<string, unknown>, value: unknown) => void {
  if (path.length === 1 && !path[0].append) {
    const key = path[0].key;
    return (payload, value) => {
      payload[key] = value;
    };
  }
  return (payload, value) => setPath(payload, path, value);
}

/** An empty value in the sense of null_policy. */
function isEmpty(value: unknown, type: MappingType): boolean {
  if (value === null || value === undefined) return true;
  return type === "template" && typeof value === "string" && value.trim() === "";
}

export type PreviewResult = { ok: true; payload: Record<string, unknown> } | { ok: false; error: string };

/** The console's live preview: maps one sample row, reporting configuration and row errors alike. */
export function previewMapping(configuration: unknown, sampleRow: Record<string, unknown>): PreviewResult {
  try {
    return { ok: true, payload: compileMapping(configuration).map(sampleRow) };
  } catch (err) {
    if (err instanceof MappingError || err instanceof MappingConfigurationError) return { ok: false, error: err.message };
    throw err;
  }
}

/** The destination payload of a delete: only the primary key is known once a row has vanished. */
export function deletePayload(compiled: CompiledMapping, primaryKeyColumn: string, key: string): Record<string, unknown> {
  const row = { [primaryKeyColumn]: key };
  if (compiled.identity) return row;
  const payload: Record<string, unknown> = {};
  for (const m of compiled.mappings) {
    if (m.mapping_type === "standard" && m.from === primaryKeyColumn) setPath(payload, parsePath(m.to), key);
  }
  return Object.keys(payload).length > 0 ? payload : row;
}
