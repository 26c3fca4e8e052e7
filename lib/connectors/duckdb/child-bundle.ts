// The DuckDB child's script, bundled once per process with esbuild from child-main.ts (our modules
// inlined, packages left to node_modules). Plain Node runs it: under the child's address-space
// limit a TypeScript loader (tsx's module hooks run a second V8 isolate and WebAssembly) would not
// start below ~16 GiB, where Node with the bundle starts in 2 GiB.
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

let built: string | undefined;

export function childScript(): string {
  if (built && existsSync(built)) return built;
  const root = process.cwd();
  // Inside node_modules, so the bundle's own imports (zod, @duckdb/node-api) resolve from there.
  const dir = path.join(root, "node_modules", ".cache", "datasync");
  mkdirSync(dir, { recursive: true });
  // Built under a name of this process's own, then renamed: the web process and a worker may build at once.
  const outfile = path.join(dir, "duckdb-child.cjs");
  const draft = path.join(dir, `duckdb-child.${process.pid}.tmp.cjs`);
  buildSync({
    entryPoints: [path.join(root, "lib/connectors/duckdb/child-main.ts")],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.node.json"),
    outfile: draft,
    logLevel: "silent",
  });
  renameSync(draft, outfile);
  return (built = outfile);
}
