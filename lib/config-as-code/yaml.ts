// YAML in and out of configuration files (the `yaml` package). Reading is strict: one document,
// no custom tags, duplicate keys refused, aliases bounded (a "billion laughs" file cannot expand
// past the request), so what a file says is what the server sees. Writing is stable: the same
// objects give the same text, for diffs under version control.
import { parseDocument, stringify } from "yaml";

/** A file that is not YAML, or not one plain document; the message says where. */
export class ConfigSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigSyntaxError";
  }
}

const MAX_ALIASES = 100;

export function parseConfigYaml(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true, strict: true, version: "1.2", schema: "core" });
  const problem = doc.errors[0];
  if (problem) throw new ConfigSyntaxError(`The file is not valid YAML: ${problem.message.split("\n")[0]}`);
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
