// One Liquid engine for connector templates (Slack messages, HttpModel request bodies), with
// parsed templates cached so a batch renders without re-parsing. No files, bounded renders: see
// lib/liquid/engine.ts.
import type { Template } from "liquidjs";
import { createLiquid, templateErrorMessage } from "@/lib/liquid/engine";
import { ConnectorError } from "./errors";

const engine = createLiquid({ strictFilters: true, ownPropertyOnly: true });
const cache = new Map<string, Template[]>();
const CACHE_LIMIT = 500;

function parse(source: string): Template[] {
  let templates = cache.get(source);
  if (!templates) {
    try {
      templates = engine.parse(source);
    } catch (err) {
      throw new ConnectorError(`The template is not valid Liquid: ${templateErrorMessage(err)}`);
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(source, templates);
  }
  return templates;
}

export function renderTemplate(source: string, scope: Record<string, unknown>): string {
  try {
    return engine.renderSync(parse(source), scope) as string;
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    throw new ConnectorError(`The template could not be rendered: ${templateErrorMessage(err)}`);
  }
}

// One class between the braces and the path trimmed afterwards: overlapping `\s*` and `+?` around
// the path made this pattern take minutes on a long run of spaces.
const SINGLE_OUTPUT = /^\s*\{\{([^{}|]*)\}\}\s*$/;

/**
 * Renders every string inside a JSON value. A string that is exactly one `{{ path }}` takes the
 * value itself (numbers, objects and arrays keep their type); other strings render as text.
 */
export function renderJsonTemplate(template: unknown, scope: Record<string, unknown>): unknown {
  if (typeof template === "string") {
    const path = SINGLE_OUTPUT.exec(template)?.[1].trim();
    if (path) {
      try {
        return engine.evalValueSync(path, scope) ?? null;
      } catch {
        return renderTemplate(template, scope);
      }
    }
    return template.includes("{{") || template.includes("{%") ? renderTemplate(template, scope) : template;
  }
  if (Array.isArray(template)) return template.map((t) => renderJsonTemplate(t, scope));
  if (template && typeof template === "object") {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, renderJsonTemplate(v, scope)]));
  }
  return template;
}
