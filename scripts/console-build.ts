// `next build` as `npm start` runs it: its progress, warnings and errors as Next prints them, without
// the table of every route (a hundred lines a first start need not show before the sign-in box).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

const ANSI = /\x1b\[[0-9;]*m/g;
// The table starts "Route (app)" (or "Route (pages)"); its rows are tree lines (┌ ├ └ │), route kind
// marks (ƒ ○ ● ◐), "+ First Load JS" and blank lines; the legend ends it ("ƒ  (Dynamic)  …").
const TABLE_START = /^Route \((app|pages)\)/;
const TABLE_LINE = /^(\s*$|[┌├└│]|[ƒ○●◐]\s|\+ First Load JS|\s+(chunks|└|├|┌))/;

/** A line filter for the build's output: false for the lines of the route table, true for the rest. */
export function routeTableFilter(): (line: string) => boolean {
  let inTable = false;
  return (line) => {
    const plain = line.replace(ANSI, "");
    if (TABLE_START.test(plain)) inTable = true;
    else if (inTable && !TABLE_LINE.test(plain)) inTable = false;
    return !inTable;
  };
}

function pipeFiltered(from: Readable, to: Writable, keep: (line: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const lines = createInterface({ input: from, crlfDelay: Infinity });
    lines.on("line", (line) => keep(line) && to.write(`${line}\n`));
    lines.on("close", resolve);
  });
}

/** Runs `next build` in production mode; rejects when it fails (its errors were printed as they came). */
export async function buildConsole(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const child = spawn("npx", ["next", "build"], {
    stdio: ["inherit", "pipe", "pipe"],
    // Colours as on a terminal, although the output now passes through a pipe.
    env: { ...env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}) },
  });
  const keep = routeTableFilter();
  const piped = Promise.all([pipeFiltered(child.stdout, process.stdout, keep), pipeFiltered(child.stderr, process.stderr, () => true)]);
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  await piped;
  if (status !== 0) throw new Error("next build failed; see the output above.");
}
