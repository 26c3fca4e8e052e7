// Liquid templates for `template` field mappings: the standard filters plus cast, regex_replace and
// to_datetime, and a `current_timestamp` variable. Templates are parsed once per run (compileTemplate)
// and rendered per row; a render error belongs to that row only.
import { Context, Liquid, Value, toValueSync, type Template } from "liquidjs";
import { assertTemplateLength, createLiquid, templateErrorMessage } from "@/lib/liquid/engine";
import { compileRegex, regexReplace } from "./regex-replace";
import { exactJson, JsonNumber, scalarText } from "@/lib/connectors/shared/values";

/** The format of `current_timestamp` and of `{{ 'now' | date: … }}` in the reference docs. */
export const TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%L%z";

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `"${value}"`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function castFilter(value: unknown, type: unknown): unknown {
  switch (type) {
    case "string":
      if (value === null || value === undefined) return "";
      return scalarText(value);
    case "number": {
      // Already a number, held exactly (a number inside JSON a JS number would bend).
      if (typeof value === "number" || value instanceof JsonNumber) return value;
      if (typeof value === "boolean") return value ? 1 : 0;
      const text = typeof value === "string" ? value.trim() : "";
      const n = text === "" ? NaN : Number(text);
      if (!Number.isFinite(n)) throw new TemplateError(`cast: ${describeValue(value)} is not a number.`);
      return n;
    }
    case "boolean": {
      if (typeof value === "boolean") return value;
      if (typeof value === "number") return value !== 0;
      const text = typeof value === "string" ? value.trim().toLowerCase() : undefined;
      if (text !== undefined && ["true", "t", "yes", "y", "1"].includes(text)) return true;
      if (text !== undefined && ["false", "f", "no", "n", "0", ""].includes(text)) return false;
      throw new TemplateError(`cast: ${describeValue(value)} is not a boolean.`);
    }
    default:
      throw new TemplateError(`cast: unknown type ${describeValue(type)}; use 'string', 'number' or 'boolean'.`);
  }
}

/** regex_replace: RE2 (see regex-replace.ts), bounded by the render's time and size limits. */
function regexReplaceFilter(this: { context: Context }, value: unknown, pattern: unknown, replacement: unknown, flags?: unknown): string {
  const input = value === null || value === undefined ? "" : String(value);
  const { renderLimit, memoryLimit } = this.context;
  return regexReplace(input, compileRegex(pattern, flags), String(replacement ?? ""), {
    tick: () => renderLimit.check(performance.now()),
    charge: (characters) => memoryLimit.use(characters),
  });
}

/** Numbers below 1e11 are taken as epoch seconds, larger ones as epoch milliseconds. */
export function parseDateInput(value: unknown): Date {
  let date: Date | undefined;
  if (value instanceof Date) date = value;
  else if (typeof value === "number") date = new Date(Math.abs(value) < 1e11 ? value * 1000 : value);
  else if (typeof value === "string") {
    const text = value.trim();
    if (text.toLowerCase() === "now" || text.toLowerCase() === "today") date = new Date();
    else if (/^-?\d+(\.\d+)?$/.test(text)) date = parseDateInput(Number(text));
    // A bare date-time without an offset is read as UTC, never in the server's local zone.
    else if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) date = new Date(`${text.replace(" ", "T")}Z`);
    else date = new Date(text);
  }
  if (!date || Number.isNaN(date.getTime())) throw new TemplateError(`to_datetime: ${describeValue(value)} is not a date.`);
  return date;
}

function createEngine(): Liquid {
  // UTC everywhere: a sync must render the same on every worker whatever its local time zone.
  const engine = createLiquid({ timezoneOffset: 0, strictFilters: true, ownPropertyOnly: true, cache: false });
  engine.registerFilter("cast", castFilter);
  // Liquid's own `json` would write a number held exactly (values.ts: JsonNumber) as its marker.
  engine.registerFilter("json", (value: unknown, space?: unknown) => exactJson(value, typeof space === "number" ? space : 0));
  engine.registerFilter("regex_replace", regexReplaceFilter);
  engine.registerFilter("to_datetime", function (this: { liquid: Liquid }, value: unknown, format?: unknown) {
    const date = parseDateInput(value);
    const fmt = typeof format === "string" && format !== "" ? format : TIMESTAMP_FORMAT;
    // Reuse Liquid's own strftime through the date filter so both filters agree on every directive.
    const dateFilter = engine.filters.date as unknown as (this: unknown, v: unknown, f: string) => string;
    return dateFilter.call(this, date, fmt);
  });
  return engine;
}

let sharedEngine: Liquid | undefined;
export function liquidEngine(): Liquid {
  sharedEngine ??= createEngine();
  return sharedEngine;
}

/** `current_timestamp` in the documented format, e.g. 2026-02-24T12:00:00.000+0000. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace("Z", "+0000");
}

export interface CompiledTemplate {
  source: string;
  /** The parsed expression of a single-`{{ … }}` template (fast-template.ts compiles the common ones). */
  expression?: Value;
  /** The parsed templates of any other template. */
  templates?: Template[];
  /** Renders with the row's columns as variables. Throws TemplateError on a bad row. */
  render(row: Record<string, unknown>, now?: Date): unknown;
}

const SINGLE_OUTPUT = /^\s*\{\{-?([\s\S]*?)-?\}\}\s*$/;

/**
 * Parses a template once. A template that is exactly one `{{ expression }}` keeps the type of its
 * value (so `{{ price | cast: 'number' }}` gives a number, not "12.5"); anything else renders to a
 * string. Throws TemplateError when the template does not parse.
 */
export function compileTemplate(source: string): CompiledTemplate {
  const engine = liquidEngine();
  try {
    assertTemplateLength(source);
  } catch (err) {
    throw new TemplateError(`The template does not parse: ${errorText(err)}`);
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(engine, source);
  } catch (err) {
    throw new TemplateError(`The template ${describeValue(source)} does not parse: ${errorText(err)}`);
  }
  const { value, templates } = parsed;
  return {
    source,
    expression: value,
    templates,
    render(row, now = new Date()) {
      const scope = { ...row, current_timestamp: formatTimestamp(now) };
      try {
        if (value) {
          const ctx = new Context(scope, engine.options, {}, { liquid: engine });
          return toValueSync(value.value(ctx, false));
        }
        return engine.renderSync(templates as Template[], scope);
      } catch (err) {
        throw new TemplateError(`The template ${describeValue(source)} failed: ${errorText(err)}`);
      }
    },
  };
}

function parse(engine: Liquid, source: string): { value?: Value; templates?: Template[] } {
  const single = SINGLE_OUTPUT.exec(source);
  const expression = single && !single[1].includes("{{") && !single[1].includes("}}") ? single[1].trim() : undefined;
  return expression ? { value: new Value(expression, engine) } : { templates: engine.parse(source) };
}

/**
 * Why a template does not parse, as a sentence saying what to fix (not echoing the template: it is
 * shown beside the template's own field); null when it parses. Row values can still fail a render.
 */
export function templateSyntaxProblem(source: string): string | null {
  try {
    assertTemplateLength(source);
    parse(liquidEngine(), source);
    return null;
  } catch (err) {
    const reason = errorText(err);
    return `${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`;
  }
}

function errorText(err: unknown): string {
  return templateErrorMessage(err);
}
