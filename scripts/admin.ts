// npm run admin -- <command>: operator commands run on the server's machine, against the same
// database as `npm start` (DATABASE_URL, else the embedded one under DATA_DIR, also while it runs).
//   reset-password EMAIL   give the account a new generated password and print it (its sessions end
//                          and its API tokens are revoked)
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { env } from "../lib/config/env";
import { setProcessDatabase } from "../lib/config/process-database";
import { closeDatabase } from "../lib/db/client";
import { dataDir, prepareDatabase, type DatabaseHandle } from "../lib/db/runtime";
import { boxed } from "./admin/box";
import { resetPasswordByEmail, UnknownAccount } from "./admin/reset-password";

const USAGE = `Usage: npm run admin -- reset-password EMAIL

  reset-password EMAIL   give the account a new generated password and print it
                         (every session ends and every API token of the account is
                         revoked; sign in with the new one and change it under
                         Settings → Password)`;

/**
 * The database of a running `npm start` with the embedded PostgreSQL: a second instance cannot
 * open its folder, so connect to the one running (its password and port are in DATA_DIR).
 */
function runningEmbedded(): DatabaseHandle | null {
  const dir = dataDir();
  if (env.DATABASE_URL || !existsSync(path.join(dir, "postgres", "postmaster.pid"))) return null;
  const { password } = JSON.parse(readFileSync(path.join(dir, "embedded-postgres.json"), "utf8")) as { password: string };
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/datasync`;
  setProcessDatabase({ url, embedded: true });
  return { url, stop: async () => undefined };
}

async function main(args: string[]): Promise<number> {
  const [command, email, ...rest] = args;
  if (command !== "reset-password" || !email || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  const db = runningEmbedded() ?? (await prepareDatabase());
  try {
    const reset = await resetPasswordByEmail(email);
    console.log(
      boxed([
        `New password for ${reset.email}:`,
        "",
        `    ${reset.password}`,
        "",
        "Shown once. Sign in and change it under Settings → Password.",
        `Every earlier session has ended; API tokens revoked: ${reset.revokedTokens}.`,
      ]),
    );
    return 0;
  } catch (err) {
    if (!(err instanceof UnknownAccount)) throw err;
    console.error(err.message);
    return 1;
  } finally {
    await closeDatabase();
    await db.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  },
);
