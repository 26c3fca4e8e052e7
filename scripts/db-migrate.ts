// npm run db:migrate: applies pending migrations to DATABASE_URL (or the embedded database).
import { prepareDatabase } from "../lib/db/runtime";

prepareDatabase((line) => console.log(line))
  .then(async (db) => {
    console.log("Database is up to date.");
    await db.stop();
  })
  .catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
