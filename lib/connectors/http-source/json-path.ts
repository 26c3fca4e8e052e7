// The part of JSONPath the Http source's settings use to pick records and cursors out of an answer:
// `$`, `.name`, `['name']`, `[n]` (negative from the end), `[*]` and `.*`. Recursive descent and
// filters are refused with a sentence: they can walk a hostile answer for a long time.
import { ConnectorError } from "../shared/errors";

export type PathStep = { kind: "key"; key: string } | { kind: "index"; index: number } | { kind: "all" };

const MAX_PATH_LENGTH = 500;

/** Parses `path`; throws ConnectorError naming `field` when it is not in the supported subset. */
export function parsePath(path: string, field: string): PathStep[] {
  const text = path.trim();
  const bad = (why: string) => new ConnectorError(`${field} "${text.slice(0, 80)}" is not a JSONPath this source reads: ${why}.`);
  if (text.length > MAX_PATH_LENGTH) throw bad("it is too long");
  if (!text.startsWith("$")) throw bad("it must start with $");
  const steps: PathStep[] = [];
  let i = 1;
  while (i < text.length) {
    if (text.startsWith("..", i)) throw bad("recursive descent (..) is not supported");
    if (text[i] === ".") {
      const m = /^\.(\*|[A-Za-z_$][\w$-]*)/.exec(text.slice(i));
      if (!m) throw bad(`unexpected text at position ${i + 1}`);
      steps.push(m[1] === "*" ? { kind: "all" } : { kind: "key", key: m[1] });
      i += m[0].length;
      continue;
    }
    if (text[i] === "[") {
      const rest = text.slice(i);
      const m = /^\[\s*(?:(\*)|(-?\d{1,9})|'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*\]/.exec(rest);
      if (!m) throw bad(`unexpected text at position ${i + 1} (filters and slices are not supported)`);
      if (m[1]) steps.push({ kind: "all" });
      else if (m[2] !== undefined) steps.push({ kind: "index", index: Number(m[2]) });
      else steps.push({ kind: "key", key: (m[3] ?? m[4]).replace(/\\(.)/g, "$1") });
      i += m[0].length;
      continue;
    }
    throw bad(`unexpected text at position ${i + 1}`);
  }
  return steps;
}

/** Every value `steps` reach in `root`, in document order. */
export function evaluate(root: unknown, steps: readonly PathStep[]): unknown[] {
  let current: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const node of current) {
      if (node === null || typeof node !== "object") continue;
      if (step.kind === "all") next.push(...(Array.isArray(node) ? node : Object.values(node)));
      else if (step.kind === "index") {
        if (!Array.isArray(node)) continue;
        const at = step.index < 0 ? node.length + step.index : step.index;
        if (at >= 0 && at < node.length) next.push(node[at]);
      } else if (!Array.isArray(node) && Object.prototype.hasOwnProperty.call(node, step.key)) {
        next.push((node as Record<string, unknown>)[step.key]);
      }
    }
    current = next;
  }
  return current;
}

/**
 * The records path of a record path: the reference's setting points at one record (`$.data[0]`,
 * its keys the columns); the records are its siblings, so a final index becomes `[*]`.
 */
export function recordsPath(steps: readonly PathStep[]): PathStep[] {
  const last = steps[steps.length - 1];
  return last?.kind === "index" ? [...steps.slice(0, -1), { kind: "all" }] : [...steps];
}
