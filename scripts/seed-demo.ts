// npm run seed:demo: creates the demo data set and sync (see lib/db/seed-demo.ts).
import { closeDatabase } from "../lib/db/client";
import { prepareDatabase } from "../lib/db/runtime";
import { seed } from "../lib/db/seed";
import { seedDemo } from "../lib/db/seed-demo";

async function main() {
  const db = await prepareDatabase();
  try {
    await seed();
    await seedDemo();
  } finally {
    await closeDatabase();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
