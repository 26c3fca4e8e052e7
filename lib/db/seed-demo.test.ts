// The demo (DEMO=1): its connectors log in as a role of their own, which reads the demo's customers
// and writes its copy, but has none of the superuser's reach (server files, other roles' secrets).
import { afterAll, expect, it } from "vitest";
import { Client } from "pg";
import { z } from "zod";
import { decryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import { executeRun } from "@/lib/engine/execute-run";
import { reloadRun } from "@/lib/engine/test-support";
import { stopEngine, triggerSync } from "@/lib/engine";
import { useTestDatabase } from "@/tests/support/db";
import { seed } from "./seed";
import { seedDemo } from "./seed-demo";

/** The demo source's settings this test connects with (the PostgreSQL source's fields). */
const demoSourceSchema = z.object({
  host: z.string(),
  port: z.number(),
  database: z.string(),
  credentials: z.object({ username: z.string(), password: z.string() }),
});

useTestDatabase();
afterAll(() => stopEngine());

it("syncs its 10,000 customers as its own non-superuser role, which cannot read server files", async () => {
  await seed({ ADMIN_EMAIL: "demo-admin@example.com", ADMIN_PASSWORD: "demo-admin-password-93" });
  const { syncId } = await seedDemo({ log: () => undefined });
  const sync = await prisma().sync.findUniqueOrThrow({ where: { id: syncId }, include: { source: true } });
  const config = decryptJson(demoSourceSchema, sync.source.configurationEncrypted, "configuration of the demo source");
  expect(config.credentials.username).toBe("datasync_demo");

  const demo = new Client({ host: config.host, port: config.port, database: config.database, user: config.credentials.username, password: config.credentials.password });
  await demo.connect();
  try {
    await expect(demo.query("SELECT pg_read_file('PG_VERSION')")).rejects.toThrow(/permission denied/);
    await expect(demo.query("SELECT rolpassword FROM pg_authid")).rejects.toThrow(/permission denied/);
    expect((await demo.query("SELECT count(*)::int AS n FROM customers")).rows[0].n).toBe(10_000);
  } finally {
    await demo.end();
  }

  const run = await triggerSync(sync.workspaceId, syncId);
  await executeRun(run.id);
  const done = await reloadRun(run.id);
  expect(done.status).toBe("success");
  expect(done.successfulRows).toBe(10_000);
});
