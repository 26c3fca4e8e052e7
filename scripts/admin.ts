// npm run admin -- <command>: operator commands run on the server's machine, against the same
// database as `npm start` (DATABASE_URL, else the embedded one under DATA_DIR, also while it runs, on
// whatever port it runs: scripts/admin/database.ts). What stops a command is said in a sentence.
//   reset-password EMAIL   give the account a new generated password and print it (its sessions end
//                          and its API tokens are revoked)
import { closeDatabase } from "../lib/db/client";
import { Prisma } from "../lib/generated/prisma/client";
import { boxed } from "./admin/box";
import { AdminDatabaseError, openAdminDatabase, type AdminDatabase } from "./admin/database";
import { resetPasswordByEmail, UnknownAccount } from "./admin/reset-password";

const USAGE = `Usage: npm run admin -- reset-password EMAIL

  reset-password EMAIL   give the account a new generated password and print it
                         (every session ends and every API token of the account is
                         revoked; sign in with the new one and change it under
                         Settings → Password)`;

/** A database error met after connecting, in a sentence: the tables are not what this code expects. */
function schemaSentence(err: unknown, db: AdminDatabase): string | null {
  if (err instanceof Prisma.PrismaClientKnownRequestError && ["P2021", "P2022"].includes(err.code)) {
    return `The database (${db.where}) lacks tables or columns this version needs: start the server once (\`npm start\`, which migrates it), then run this again.`;
  }
  if (err instanceof Prisma.PrismaClientKnownRequestError || err instanceof Prisma.PrismaClientUnknownRequestError) {
    return `The database (${db.where}) refused the change: ${err.message.split("\n").filter(Boolean).pop()}`;
  }
  return null;
}

async function main(args: string[]): Promise<number> {
  const [command, email, ...rest] = args;
  if (command !== "reset-password" || !email || rest.length > 0) {
    console.error(USAGE);
    return 2;
  }
  let db: AdminDatabase;
  try {
    db = await openAdminDatabase();
  } catch (err) {
    if (!(err instanceof AdminDatabaseError)) throw err;
    console.error(err.message);
    return 1;
  }
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
    const sentence = err instanceof UnknownAccount ? err.message : schemaSentence(err, db);
    if (!sentence) throw err;
    console.error(sentence);
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
