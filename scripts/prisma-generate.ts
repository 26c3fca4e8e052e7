// Runs `prisma generate` without the schema-engine binary, which cannot be downloaded here:
// generate never calls the engine, it only checks that the path points at an existing file.
// Then writes Kysely's table types from the same schema (scripts/kysely-types.ts).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { kyselyTypes, readPrismaSchema } from "./kysely-types";

if (!existsSync("prisma/schema.prisma")) process.exit(0);
const result = spawnSync("npx", ["prisma", "generate"], {
  stdio: "inherit",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
if (result.status !== 0) process.exit(result.status ?? 1);
mkdirSync("lib/generated/kysely", { recursive: true });
writeFileSync("lib/generated/kysely/db.ts", kyselyTypes(readPrismaSchema(readFileSync("prisma/schema.prisma", "utf8"))));
console.log("Wrote Kysely types to lib/generated/kysely/db.ts");
