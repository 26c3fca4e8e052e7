// The workspace's state as configuration entries reads each stored JSON column with the schema of
// its shape: a value that does not match (edited by hand, written by a broken version) makes export
// and plan answer a 409 naming the value, never a 500 or an entry built on a guess.
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { MalformedStoredValue } from "@/lib/validation/stored";
import { configDocumentSchema } from "@/lib/validation/config";
import { useTestDatabase } from "@/tests/support/db";
import { newMember } from "@/tests/support/auth-fixtures";
import { applyConfig, exportConfig, planConfig } from "./config";

useTestDatabase();

const pg = { host: "127.0.0.1", port: 5432, database: "test", schema: "public", credentials: { auth_type: "username/password", username: "postgres", password: "${env:PW}" } };

const doc = () =>
  configDocumentSchema.parse({
    version: 1,
    connectors: [
      { slug: "wh", name: "Warehouse", connector_type: "source", connector_name: "Postgresql", configuration: pg },
      { slug: "crm", name: "CRM", connector_type: "destination", connector_name: "Postgresql", configuration: pg, catalog: { streams: [{ name: "contacts" }] } },
    ],
    models: [{ slug: "users", name: "Users", connector: "wh", query: "SELECT id FROM users", query_type: "raw_sql", primary_key: "id", configuration: { table: "users" } }],
    syncs: [
      {
        slug: "to-crm",
        name: "To CRM",
        source: "wh",
        destination: "crm",
        model: "users",
        stream_name: "contacts",
        sync_mode: "full_refresh",
        schedule_type: "manual",
        configuration: [{ from: "id", to: "id" }],
        guard: { max_delete_percent: 5 },
      },
    ],
    secrets: { PW: "pw" },
  });

async function workspace() {
  const admin = await newMember("Admin");
  await applyConfig(admin.auth, doc());
  const sync = await prisma().sync.findFirstOrThrow({ where: { workspaceId: admin.workspaceId } });
  return { admin, sync };
}

describe("stored JSON in configuration entries", () => {
  it("exports the model's settings, the mapping and the guard as stored", async () => {
    const { admin } = await workspace();
    const text = await exportConfig(admin.auth);
    expect(text).toContain("table: users");
    expect(text).toMatch(/configuration:\n\s+- from: id\n\s+to: id\n\s+mapping_type: standard/);
    expect(text).toContain("max_delete_percent: 5");
  });

  it.each([
    ["configuration of sync", { configuration: { id: 5 } }, "(root): must be an array of {from, to"],
    ["guard of sync", { guard: { max_delete_percent: "all" } }, "max_delete_percent: "],
  ] as const)("refuses a stored %s that does not match its shape with a 409 naming it", async (what, data, where) => {
    const { admin, sync } = await workspace();
    await prisma().sync.update({ where: { id: sync.id }, data });
    const expected = `Malformed stored ${what} ${sync.id}: ${where}`;
    await expect(exportConfig(admin.auth)).rejects.toThrow(MalformedStoredValue);
    await expect(exportConfig(admin.auth)).rejects.toThrow(expected);
    await expect(planConfig(admin.auth, doc())).rejects.toMatchObject({ httpStatus: 409, message: expect.stringContaining(expected) });
  });

  it("refuses a model's stored settings that are not an object", async () => {
    const { admin } = await workspace();
    const model = await prisma().model.findFirstOrThrow({ where: { workspaceId: admin.workspaceId } });
    await prisma().model.update({ where: { id: model.id }, data: { configuration: ["table", "users"] } });
    await expect(exportConfig(admin.auth)).rejects.toThrow(`Malformed stored configuration of model ${model.id}: (root): `);
  });
});
