// Config plan and apply on a real database (docs/config-as-code.md): the order of changes, one
// transaction (a late error undoes the early writes), plan writing nothing, prune, references never
// read from the server's environment, per-kind permissions, and export → apply → export.
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { prisma } from "@/lib/db/client";
import { Conflict, Forbidden, ValidationFailed } from "@/lib/errors";
import { configDocumentSchema, type ConfigDocumentInput } from "@/lib/validation/config";
import { useTestDatabase } from "@/tests/support/db";
import { newMember } from "@/tests/support/auth-fixtures";
import { applyConfig, exportConfig, planConfig } from "./config";

useTestDatabase();

const pg = (password: string) => ({
  host: "127.0.0.1",
  port: 5432,
  database: "test",
  schema: "public",
  credentials: { auth_type: "username/password", username: "postgres", password },
});

const DOC: ConfigDocumentInput = {
  version: 1,
  connectors: [
    { slug: "wh", name: "Warehouse", connector_type: "source", connector_name: "Postgresql", configuration: pg("${env:DATASYNC_SECRET_WH}") },
    {
      slug: "crm",
      name: "CRM",
      connector_type: "destination",
      connector_name: "Postgresql",
      configuration: pg("${env:DATASYNC_SECRET_CRM}"),
      catalog: { streams: [{ name: "contacts" }] },
    },
  ],
  models: [{ slug: "users", name: "Users", connector: "wh", query: "SELECT id FROM users", query_type: "raw_sql", primary_key: "id" }],
  syncs: [
    { slug: "to-crm", name: "To CRM", source: "wh", destination: "crm", model: "users", stream_name: "contacts", sync_mode: "full_refresh", schedule_type: "manual" },
  ],
  secrets: { DATASYNC_SECRET_WH: "pw1", DATASYNC_SECRET_CRM: "pw2" },
};

const doc = (input: ConfigDocumentInput = DOC) => configDocumentSchema.parse(structuredClone(input));

async function counts(workspaceId: number) {
  const where = { workspaceId };
  return {
    connectors: await prisma().connector.count({ where }),
    catalogs: await prisma().catalog.count({ where }),
    models: await prisma().model.count({ where }),
    syncs: await prisma().sync.count({ where: { ...where, deletedAt: null } }),
    audit: await prisma().auditLog.count({ where }),
  };
}

let admin: Awaited<ReturnType<typeof newMember>>;

beforeAll(async () => {
  admin = await newMember("Admin");
});

describe("config apply", () => {
  it("plans without writing, then creates in dependency order in one go", async () => {
    const before = await counts(admin.workspaceId);
    const plan = await planConfig(admin.auth, doc());
    expect(plan.changes.map((c) => `${c.action} ${c.kind} ${c.slug}`)).toEqual(["create connectors wh", "create connectors crm", "create models users", "create syncs to-crm"]);
    expect(plan.changes.every((c) => c.id === null)).toBe(true);
    // A secret is shown as changed, never by value, even when the file holds it literally.
    expect(plan.changes[0].fields).toContainEqual({ field: "configuration.credentials.password", secret: true });
    const literal = structuredClone(DOC);
    literal.connectors![0].configuration = pg("a-literal-secret");
    expect(JSON.stringify(await planConfig(admin.auth, doc(literal)))).not.toContain("a-literal-secret");
    expect(JSON.stringify(plan)).not.toContain("pw1");
    expect(await counts(admin.workspaceId)).toEqual(before);

    const applied = await applyConfig(admin.auth, doc());
    expect(applied.applied).toBe(true);
    expect(applied.changes.every((c) => typeof c.id === "number")).toBe(true);
    expect(await counts(admin.workspaceId)).toMatchObject({ connectors: 2, catalogs: 1, models: 1, syncs: 1 });
    const apply = await prisma().auditLog.findFirst({ where: { workspaceId: admin.workspaceId, action: "apply", resourceType: "config" } });
    expect(apply?.metadata).toMatchObject({ summary: { create: 4, update: 0, delete: 0, unchanged: 0 } });
    // The same document again changes nothing.
    expect((await planConfig(admin.auth, doc())).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 4 });
  });

  it("exports what it applied without secrets, and the export applies to a new workspace as the same text", async () => {
    const text = await exportConfig(admin.auth);
    expect(text).not.toMatch(/pw1|pw2/);
    const exported = parse(text) as ConfigDocumentInput;
    const other = await newMember("Admin");
    await applyConfig(other.auth, doc({ ...exported, secrets: { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "a", DATASYNC_SECRET_CRM_CREDENTIALS_PASSWORD: "b" } }));
    expect(await exportConfig(other.auth)).toBe(text);
  });

  it("matches entries by slug, else by name: hand-picked slugs apply twice the same, a kept slug renames", async () => {
    // "wh" is not the slug export derives ("warehouse"): the entry stands for the object named Warehouse.
    expect((await planConfig(admin.auth, doc())).changes).toEqual([]);
    const renamed = structuredClone(DOC);
    renamed.connectors![0] = { ...renamed.connectors![0], slug: "warehouse", name: "Main warehouse" };
    renamed.models![0].connector = "warehouse";
    renamed.syncs![0].source = "warehouse";
    const plan = await planConfig(admin.auth, doc(renamed));
    expect(plan.changes).toEqual([{ kind: "connectors", slug: "warehouse", action: "update", id: expect.any(Number), fields: [{ field: "name", before: "Warehouse", after: "Main warehouse" }] }]);
  });

  it("an error in the last change undoes every earlier one", async () => {
    const member = await newMember("Admin");
    const broken = structuredClone(DOC);
    broken.syncs![0].stream_name = "missing";
    const before = await counts(member.workspaceId);
    const err = await applyConfig(member.auth, doc(broken)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).message).toMatch(/^Creating sync "to-crm": Validation failed: syncs\.0\.stream_name: /);
    expect((err as ValidationFailed).errors?.map((e) => e.path)).toEqual(["syncs.0.stream_name"]);
    expect(await counts(member.workspaceId)).toEqual(before);
  });

  it("deletes only with prune, syncs before the models and connectors they use", async () => {
    const member = await newMember("Admin");
    await applyConfig(member.auth, doc());
    const kept = await planConfig(member.auth, doc({ version: 1, models: [], syncs: [] }));
    expect(kept.changes).toEqual([]);
    const pruned = await applyConfig(member.auth, doc({ version: 1, prune: true, models: [], syncs: [] }));
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.slug}`)).toEqual(["delete syncs to-crm", "delete models users"]);
    // Connectors were not listed: prune leaves their kind alone.
    expect(await counts(member.workspaceId)).toMatchObject({ connectors: 2, models: 0, syncs: 0 });
    // A connector still used by a model the file keeps is the API's 409, naming the entry; nothing is deleted.
    // Without the connectors in the file, the model names its connector by the workspace's slug.
    await applyConfig(member.auth, doc({ version: 1, models: [{ ...DOC.models![0], connector: "warehouse" }] }));
    const err = await applyConfig(member.auth, doc({ version: 1, prune: true, connectors: [] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Conflict);
    expect((err as Conflict).message).toMatch(/^Deleting connector "crm": Connector \d+ "CRM" is|^Deleting connector "warehouse": Connector \d+ "Warehouse" is still used by model/);
    expect(await counts(member.workspaceId)).toMatchObject({ connectors: 2, models: 1 });
  });

  it("never resolves a reference from the server's own environment", async () => {
    expect(process.env.DATABASE_URL).toBeTruthy();
    const member = await newMember("Admin");
    const thief = structuredClone(DOC);
    thief.connectors![0].configuration = pg("${env:DATABASE_URL}");
    const err = await applyConfig(member.auth, doc({ ...thief, secrets: { DATASYNC_SECRET_CRM: "x" } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).errors?.map((e) => e.path)).toEqual(["connectors.0.configuration.credentials.password"]);
    expect((await counts(member.workspaceId)).connectors).toBe(0);
  });

  it("needs the permissions of each kind it changes; export needs read of each kind it writes", async () => {
    const viewer = await newMember("Viewer", admin.workspaceId);
    const { secrets: _secrets, ...withoutSecrets } = DOC;
    expect((await planConfig(viewer.auth, doc(withoutSecrets))).changes).toEqual([]);
    const renamed = structuredClone(withoutSecrets);
    renamed.models![0].name = "Renamed";
    renamed.connectors!.push({ slug: "new", name: "New", connector_type: "source", connector_name: "Postgresql", configuration: pg("x") });
    const err = await applyConfig(viewer.auth, doc(renamed)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Forbidden);
    expect((err as Forbidden).message).toBe('Your role (Viewer) may not create connectors ("new"), nor update models ("users"); nothing was changed.');
    expect(await exportConfig(viewer.auth)).toContain("slug: to-crm");
  });

  it("plan and apply need read of each kind the file lists or points at (their answer shows what the workspace holds)", async () => {
    const member = await newMember("Member", admin.workspaceId);
    const crud = (read: boolean) => ({ create: true, read, update: true, delete: false });
    const blind = { ...member.auth, roleName: "blind", policies: { permissions: { connector: crud(false), model: crud(true), sync: crud(true) } } };
    const { secrets: _secrets, ...withoutSecrets } = DOC;
    // Without the check a role that cannot read connectors learnt their names and values from the plan.
    for (const file of [doc(withoutSecrets), doc({ version: 1, models: DOC.models }), doc({ version: 1, syncs: DOC.syncs })]) {
      const err = await planConfig(blind, file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Forbidden);
      expect((err as Forbidden).message).toBe("Your role (blind) may not read connectors, which plan and apply compare the file with; nothing was changed.");
    }
    expect(await applyConfig(blind, doc({ version: 1, connectors: DOC.connectors })).catch((e: unknown) => e)).toBeInstanceOf(Forbidden);
    // A file of nothing, or of kinds it may read that point at none it may not, is answered.
    expect((await planConfig(blind, doc({ version: 1 }))).changes).toEqual([]);
    const sighted = { ...blind, policies: { permissions: { connector: crud(true), model: crud(true), sync: crud(false) } } };
    expect((await planConfig(sighted, doc({ version: 1, models: [{ ...DOC.models![0], connector: "warehouse" }] }))).changes).toEqual([]);
  });

  it("a role that may not update connectors cannot test a guessed secret against the stored one", async () => {
    const viewer = await newMember("Viewer", admin.workspaceId);
    const answer = (password: string) =>
      planConfig(viewer.auth, doc({ ...DOC, secrets: { DATASYNC_SECRET_WH: password, DATASYNC_SECRET_CRM: "pw2" } })).then(
        (plan) => `planned ${plan.changes.length}`,
        (e: unknown) => `${(e as Error).constructor.name}: ${(e as Error).message}`,
      );
    const literal = structuredClone(DOC);
    literal.connectors![0].configuration = pg("pw1");
    // The right password and a wrong one get the same answer; so does a literal one in the file.
    const right = await answer("pw1");
    expect(right).toBe('Forbidden: Your role (Viewer) may not update connectors ("wh", "crm"); nothing was changed.');
    expect(await answer("wrong guess")).toBe(right);
    // Also beside other changes the role may not make: the sentence does not move with the guess.
    const withRename = (password: string) => {
      const renamed = structuredClone({ ...DOC, secrets: { DATASYNC_SECRET_WH: password, DATASYNC_SECRET_CRM: "pw2" } });
      renamed.models![0].name = "Renamed";
      return planConfig(viewer.auth, doc(renamed)).catch((e: unknown) => (e as Error).message);
    };
    expect(await withRename("pw1")).toBe('Your role (Viewer) may not update connectors ("wh", "crm"), nor update models ("users"); nothing was changed.');
    expect(await withRename("wrong guess")).toBe(await withRename("pw1"));
    const { secrets: _secrets, ...withoutSecrets } = literal;
    expect(await planConfig(viewer.auth, doc(withoutSecrets)).catch((e: unknown) => e)).toBeInstanceOf(Forbidden);
    // A role that may update connectors (and so could replace the secret) is answered as before.
    expect((await planConfig(admin.auth, doc())).changes).toEqual([]);
  });
});
