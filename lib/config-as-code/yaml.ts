// YAML in and out of configuration files (the `yaml` package). Reading is strict: one document,
// no custom or YAML 1.1 tags, only JSON's values (no .nan or .inf), duplicate keys refused, aliases bounded (a "billion laughs" file cannot expand
// past the request), so what a file says is what the server sees. Every check is linear in the
// text: nesting is measured on the tokens before parsing (the parser is slow on deep flow
// collections, ~7 s for 1 MB of "["), and duplicate keys are found with a set per map (the
// package's own uniqueKeys compares every pair: a 1 MB map of 100,000 keys took minutes).
// Writing is stable: the same objects give the same text, for diffs under version control.
import { isScalar, Lexer, parseDocument, stringify, visit, type Document } from "yaml";

/** A file that is not YAML, or not one plain document; the message says where. */
export class ConfigSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigSyntaxError";
  }
}

const MAX_ALIASES = 100;

/** Deepest nesting of flow collections ([…] and {…}) read; no configuration comes close. */
export const MAX_FLOW_DEPTH = 64;

/** Refuses flow collections nested deeper than MAX_FLOW_DEPTH, stopping at the first token past it. */
function assertFlowDepth(text: string): void {
  let depth = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === "[" || token === "{") depth += 1;
    else if (token === "]" || token === "}") depth = Math.max(0, depth - 1);
    if (depth > MAX_FLOW_DEPTH) throw new ConfigSyntaxError(`The file nests [...] and {...} deeper than ${MAX_FLOW_DEPTH} levels; flatten it.`);
  }
}

/** The JavaScript property name a scalar key becomes. */
const keyName = (value: unknown): string => (value === null || value === undefined ? "" : String(value));

/** The line of a character offset, for messages (only on the way to an error). */
const lineAt = (source: string, offset: number | undefined): string =>
  offset === undefined ? "" : ` at line ${source.slice(0, offset).split("\n").length}`;

/**
 * Keys are plain values, each once per map (as JavaScript sees them: `1` and "1" are the same key);
 * numbers are finite (.nan and .inf are YAML, not JSON).
 */
function assertPlainData(doc: Document.Parsed, source: string): void {
  visit(doc, {
    Scalar(_, scalar) {
      if (typeof scalar.value === "number" && !Number.isFinite(scalar.value)) {
        throw new ConfigSyntaxError(`The file is not valid YAML for this server: ${scalar.source ?? "a number"} is not a finite number${lineAt(source, scalar.range?.[0])}.`);
      }
    },
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) {
          throw new ConfigSyntaxError(`The file is not valid YAML: a key must be a plain value, not a list, map or alias${lineAt(source, map.range?.[0])}.`);
        }
        const name = keyName(pair.key.value);
        if (seen.has(name)) {
          throw new ConfigSyntaxError(`The file is not valid YAML: the key "${name.slice(0, 100)}" appears twice in one map${lineAt(source, pair.key.range?.[0])}.`);
        }
        seen.add(name);
      }
    },
  });
}

export function parseConfigYaml(source: string): unknown {
  assertFlowDepth(source);
  // resolveKnownTags off: !!binary, !!set, !!omap, !!timestamp would be a Buffer, Set, Map or Date,
  // which no JSON body can hold; unresolved, they are warnings, refused below like a custom tag.
  const doc = parseDocument(source, { uniqueKeys: false, prettyErrors: true, strict: true, version: "1.2", schema: "core", resolveKnownTags: false });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw new ConfigSyntaxError(`The file is not valid YAML: ${problem.message.split("\n")[0]}`);
  assertPlainData(doc, source);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    throw new ConfigSyntaxError(`The file could not be read: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** YAML text of a document; keys keep the order the objects were built in. */
export function stringifyConfigYaml(value: unknown): string {
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false, version: "1.2" });
}
