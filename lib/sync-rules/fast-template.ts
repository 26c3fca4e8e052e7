// Plain-function rendering of the commonest templates (issue 37): `{{ variable | filter … }}` outputs,
// alone or among text, whose variable is a column (or a dotted path into one) and whose filters are
// Liquid's own string filters with literal arguments. Liquid builds a Context, a scope copy and a chain
// of generators per row; this does the same work with closures built once per run. (Its time is linear
// in the row's text, so Liquid's per-render time limit, meant for loops, has nothing to stop here.)
// Exactness is by construction, not by imitation of every corner: the closure handles only rows whose
// values it models (text, numbers, booleans, null, missing; plain objects and arrays when no filter
// applies) within the render's memory limit, and answers FALLBACK for anything else, after which the
// caller renders that row with Liquid itself, errors included. fast-template.test.ts checks both agree.
import { filters as liquidFilters, Output, TokenKind, type Liquid, type Template, type Value } from "liquidjs";
import { TEMPLATE_LIMITS } from "@/lib/liquid/engine";

/** "Render this row with Liquid": the closure met a value it does not model. */
export const FALLBACK: unique symbol = Symbol("render with Liquid");

/** Renders one row; `timestamp` gives `current_timestamp` (formatted) when the template reads it. */
export type FastTemplate = (row: Record<string, unknown>, timestamp: () => string) => unknown;

type Step = (value: unknown, charge: Charge) => unknown;
type Charge = { used: number };

// Names Liquid reads specially (readSize/readFirst/readLast), or that exist on every object (a scope
// lookup would find Object.prototype's): left to Liquid.
const SPECIAL = new Set(["size", "first", "last"]);
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function plainName(name: unknown): name is string {
  return typeof name === "string" && IDENTIFIER.test(name) && !SPECIAL.has(name) && !(name in Object.prototype);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Liquid's stringify for the values modelled here; undefined when the value is not one of them. */
function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A filter over modelled values: FALLBACK when its input is not modelled or the memory limit would be hit. */
function stringFilter(chargeOf: (s: string) => number, apply: (s: string) => string): Step {
  return (value, charge) => {
    const s = text(value);
    if (s === undefined) return FALLBACK;
    charge.used += chargeOf(s);
    if (charge.used > TEMPLATE_LIMITS.memory) return FALLBACK;
    return apply(s);
  };
}

/** The step of one filter with literal arguments, or undefined when it is not one modelled here. */
function compileFilter(engine: Liquid, name: string, args: unknown[]): Step | undefined {
  // A filter the project replaced (or a custom one) keeps its own behaviour: Liquid renders it.
  if ((engine.filters as Record<string, unknown>)[name] !== (liquidFilters as Record<string, unknown>)[name]) return undefined;
  const literals: unknown[] = [];
  for (const arg of args) {
    const token = arg as { kind?: number; content?: unknown };
    if (Array.isArray(arg) || (token.kind !== TokenKind.Quoted && token.kind !== TokenKind.Number)) return undefined;
    literals.push(token.content);
  }
  const noArgs = literals.length === 0;
  const length = (s: string) => s.length;
  switch (name) {
    case "downcase":
      return noArgs ? stringFilter(length, (s) => s.toLowerCase()) : undefined;
    case "upcase":
      return noArgs ? stringFilter(length, (s) => s.toUpperCase()) : undefined;
    case "strip":
      return noArgs ? stringFilter(length, (s) => s.trim()) : undefined;
    case "lstrip":
      return noArgs ? stringFilter(length, (s) => s.trimStart()) : undefined;
    case "rstrip":
      return noArgs ? stringFilter(length, (s) => s.trimEnd()) : undefined;
    case "append":
    case "prepend": {
      const extra = literals.length === 1 ? text(literals[0]) : undefined;
      if (extra === undefined) return undefined;
      const join = name === "append" ? (s: string) => s + extra : (s: string) => extra + s;
      return stringFilter((s) => s.length + extra.length, join);
    }
    case "default": {
      if (literals.length !== 1) return undefined;
      const fallback = literals[0];
      // Liquid: text and lists count as empty by length, otherwise only false, nil and undefined do.
      return (value) => {
        if (typeof value === "string") return value.length ? value : fallback;
        if (value === null || value === undefined || value === false) return fallback;
        return typeof value === "object" ? FALLBACK : value;
      };
    }
    default:
      return undefined;
  }
}

/** Reads `path` the way Liquid's scope lookup does for plain data; FALLBACK for anything else. */
function compileLookup(path: string[]): FastTemplate {
  const [head, ...rest] = path;
  return (row, timestamp) => {
    let value: unknown =
      head === "current_timestamp" ? timestamp() : Object.prototype.hasOwnProperty.call(row, head) ? row[head] : undefined;
    for (const key of rest) {
      if (value === null || value === undefined) return value;
      if (typeof value !== "object" || Array.isArray(value) || !isPlainObject(value)) return FALLBACK;
      value = Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (typeof value === "function") return FALLBACK;
    if (typeof value === "object" && value !== null && !Array.isArray(value) && !isPlainObject(value)) return FALLBACK;
    return value;
  };
}

/** One expression of a render; `charge` is the render's memory count, shared by all its expressions. */
type FastExpression = (row: Record<string, unknown>, timestamp: () => string, charge: Charge) => unknown;

/** The plain function of a parsed single-expression template, or undefined when Liquid must render it. */
export function compileFastTemplate(engine: Liquid, expression: Value, reads?: Set<string>): FastTemplate | undefined {
  const fast = compileExpression(engine, expression, reads);
  return fast && ((row, timestamp) => fast(row, timestamp, { used: 0 }));
}

/**
 * Text and `{{ … }}` outputs only (`{{ first_name }} {{ last_name }}`), each output a compiled
 * expression: the text Liquid writes, every written character charged to the memory limit as
 * lib/liquid/engine.ts's emitter does. Any tag leaves the template to Liquid.
 */
export function compileFastText(engine: Liquid, templates: Template[], reads?: Set<string>): FastTemplate | undefined {
  const parts: (string | FastExpression)[] = [];
  for (const template of templates) {
    const html = template as unknown as { token?: { kind?: number }; str?: unknown };
    if (html.token?.kind === TokenKind.HTML && typeof html.str === "string") parts.push(html.str);
    else if (template instanceof Output) {
      const fast = compileExpression(engine, template.value, reads);
      if (!fast) return undefined;
      parts.push(fast);
    } else return undefined;
  }
  return (row, timestamp) => {
    const charge: Charge = { used: 0 };
    let out = "";
    for (const part of parts) {
      const written = typeof part === "string" ? part : text(part(row, timestamp, charge));
      if (written === undefined) return FALLBACK;
      charge.used += written.length;
      if (charge.used > TEMPLATE_LIMITS.memory) return FALLBACK;
      out += written;
    }
    return out;
  };
}

/** `reads` collects the row's columns the expression looks up (its path's head). */
function compileExpression(engine: Liquid, expression: Value, reads?: Set<string>): FastExpression | undefined {
  const postfix = (expression.initial as unknown as { postfix: unknown[] }).postfix;
  if (postfix.length !== 1) return undefined;
  const access = postfix[0] as { kind?: number; variable?: unknown; props?: { kind?: number; content?: unknown }[] };
  if (access.kind !== TokenKind.PropertyAccess || access.variable !== undefined || !access.props?.length) return undefined;
  const path: string[] = [];
  for (const prop of access.props) {
    if (prop.kind !== TokenKind.Word || !plainName(prop.content)) return undefined;
    path.push(prop.content);
  }
  const steps: Step[] = [];
  for (const filter of expression.filters) {
    const step = compileFilter(engine, filter.name, filter.args as unknown[]);
    if (!step) return undefined;
    steps.push(step);
  }
  if (path[0] !== "current_timestamp") reads?.add(path[0]);
  const lookup = compileLookup(path);
  if (steps.length === 0) return lookup;
  return (row, timestamp, charge) => {
    let value = lookup(row, timestamp);
    for (const step of steps) {
      if (value === FALLBACK) return FALLBACK;
      value = step(value, charge);
    }
    return value;
  };
}
