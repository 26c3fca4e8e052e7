// npm run docs:env: rewrites the README's tables of environment variables from lib/settings/env.ts
// (descriptions, forms, defaults) and the list of test variables in lib/settings/env-docs.ts.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { withTables } from "../lib/settings/env-docs";

const readme = path.resolve("README.md");
const before = readFileSync(readme, "utf8");
const after = withTables(before);
if (after === before) console.log("README.md: the variable tables are up to date.");
else {
  writeFileSync(readme, after);
  console.log("README.md: variable tables rewritten.");
}
