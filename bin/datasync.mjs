#!/usr/bin/env node
// `npx datasync …` in the repository (package.json "bin"): runs scripts/datasync.ts with tsx and
// the repository's Node tsconfig, from wherever it is called.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const result = spawnSync(
  process.execPath,
  [tsx, "--tsconfig", path.join(root, "tsconfig.node.json"), path.join(root, "scripts/datasync.ts"), ...process.argv.slice(2)],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
