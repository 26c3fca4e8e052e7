// A TypeScript entry bundled once per process with esbuild into a plain script (our modules inlined,
// packages left to node_modules) for a child process or a worker thread to run: they start without
// a TypeScript loader, and in production there is no source tree loader at all.
import { existsSync, mkdirSync, renameSync } from "node:fs";
import path from "node:path";
import { buildSync } from "esbuild";

const built = new Map<string, string>();

/** The bundle of `entry` (relative to the project root), written as `node_modules/.cache/datasync/<name>.cjs`. */
export function bundledScript(entry: string, name: string): string {
  const done = built.get(name);
  if (done && existsSync(done)) return done;
  const root = process.cwd();
  // Inside node_modules, so the bundle's own imports resolve from there.
  const dir = path.join(root, "node_modules", ".cache", "datasync");
  mkdirSync(dir, { recursive: true });
  // Built under a name of this process's own, then renamed: the web process and a worker may build at once.
  const outfile = path.join(dir, `${name}.cjs`);
  const draft = path.join(dir, `${name}.${process.pid}.tmp.cjs`);
  buildSync({
    // Run-time paths, not imports: without the ignore, Turbopack traces the whole project into the build (and warns).
    entryPoints: [path.join(/*turbopackIgnore: true*/ root, entry)],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    packages: "external",
    tsconfig: path.join(/*turbopackIgnore: true*/ root, "tsconfig.node.json"),
    outfile: draft,
    logLevel: "silent",
  });
  renameSync(draft, outfile);
  built.set(name, outfile);
  return outfile;
}
