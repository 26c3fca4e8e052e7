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
import { channelConfig } from "../notifications/alerts/channels";
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

  it("takes live as the API does: the same 422s on syncs.N.live, written nowhere; export shows the flag", async () => {
    const member = await newMember("Admin");
    const before = await counts(member.workspaceId);
    const full = structuredClone(DOC);
    full.syncs![0] = { ...full.syncs![0], live: true };
    const refused = await applyConfig(member.auth, doc(full)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationFailed);
    expect((refused as ValidationFailed).errors).toEqual([{ path: "syncs.0.live", message: expect.stringMatching(/needs sync_mode incremental/) }]);
    // The source is asked, with the stored configuration: this server runs wal_level=replica.
    const replica = structuredClone(DOC);
    replica.connectors![0].configuration = { ...pg("${env:DATASYNC_SECRET_WH}"), database: "postgres" };
    replica.syncs![0] = { ...replica.syncs![0], sync_mode: "incremental", live: true };
    const err = await applyConfig(member.auth, doc(replica)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).errors).toEqual([{ path: "syncs.0.live", message: expect.stringMatching(/wal_level=replica.*wal_level=logical/) }]);
    expect(await counts(member.workspaceId)).toEqual(before);
    // Off, it applies; the export says so, and the flag is compared like any field.
    replica.syncs![0] = { ...replica.syncs![0], live: false };
    await applyConfig(member.auth, doc(replica));
    expect(parse(await exportConfig(member.auth))).toMatchObject({ syncs: [{ slug: "to-crm", live: false }] });
    expect((await planConfig(member.auth, doc(replica))).summary).toMatchObject({ update: 0, unchanged: 4 });
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

// Alert channels and rules as kinds, and a sync's run_after list as a field of its entry.
const SLACK = "http://127.0.0.1:9/services/T000/B000/sEcReTsLaCk";
const sync = (slug: string, name: string, runAfter?: string[]) => ({
  ...DOC.syncs![0],
  slug,
  name,
  ...(runAfter ? { run_after: runAfter } : {}),
});
const ALERTS: ConfigDocumentInput = {
  ...DOC,
  syncs: [sync("to-crm", "To CRM"), sync("second", "Second", ["to-crm"]), sync("third", "Third", ["second"])],
  alert_channels: [
    { slug: "ops-slack", name: "Ops Slack", channel_type: "slack", url: "${env:DATASYNC_SECRET_OPS_SLACK_URL}" },
    { slug: "on-call", name: "On call", channel_type: "email", recipients: ["Ops@Example.com"] },
  ],
  alert_rules: [
    { slug: "crm-failing", name: "CRM failing", sync: "to-crm", condition: "run_failed", channels: ["ops-slack", "on-call"] },
    { slug: "slow", name: "Slow", condition: "run_duration", threshold: 30, channels: ["on-call"] },
  ],
  secrets: { ...DOC.secrets, DATASYNC_SECRET_OPS_SLACK_URL: SLACK },
};

async function edges(workspaceId: number): Promise<string[]> {
  const rows = await prisma().syncDependency.findMany({ where: { workspaceId } });
  const names = new Map((await prisma().sync.findMany({ where: { workspaceId } })).map((s) => [s.id, s.name]));
  return rows.map((r) => `${names.get(r.syncId)} after ${names.get(r.upstreamSyncId)}`).sort();
}

describe("config alert channels, alert rules and run_after", () => {
  it("round-trips a rule, a Slack channel whose URL is a secret and a run_after chain", async () => {
    const member = await newMember("Admin");
    const plan = await planConfig(member.auth, doc(ALERTS));
    expect(plan.changes.map((c) => `${c.action} ${c.kind} ${c.slug}`).slice(-4)).toEqual([
      "create alert_channels ops-slack",
      "create alert_channels on-call",
      "create alert_rules crm-failing",
      "create alert_rules slow",
    ]);
    expect(plan.changes.find((c) => c.slug === "ops-slack")?.fields).toContainEqual({ field: "url", secret: true });
    expect(plan.changes.find((c) => c.slug === "second")?.fields).toContainEqual({ field: "run_after" });
    expect(JSON.stringify(plan)).not.toContain("sEcReT");
    expect(await prisma().alertChannel.count({ where: { workspaceId: member.workspaceId } })).toBe(0);

    await applyConfig(member.auth, doc(ALERTS));
    expect(await edges(member.workspaceId)).toEqual(["Second after To CRM", "Third after Second"]);
    const slack = await prisma().alertChannel.findFirstOrThrow({ where: { workspaceId: member.workspaceId, channelType: "slack" } });
    expect(channelConfig(slack).url).toBe(SLACK);
    const rule = await prisma().alertRule.findFirstOrThrow({ where: { workspaceId: member.workspaceId, name: "CRM failing" } });
    const toCrm = await prisma().sync.findFirstOrThrow({ where: { workspaceId: member.workspaceId, name: "To CRM" } });
    expect(rule.syncId).toBe(toCrm.id);
    expect(rule.channelIds).toHaveLength(2);
    // The same file again, channels in another order, and without the URL's value: nothing changes.
    const again = structuredClone(ALERTS);
    again.alert_rules![0].channels = ["on-call", "ops-slack"];
    again.secrets = DOC.secrets;
    expect((await planConfig(member.auth, doc(again))).summary).toEqual({ create: 0, update: 0, delete: 0, unchanged: 10 });

    const text = await exportConfig(member.auth);
    expect(text).not.toContain("sEcReT");
    const exported = parse(text) as ConfigDocumentInput;
    expect(exported.alert_channels?.[0]).toEqual({ slug: "ops-slack", name: "Ops Slack", channel_type: "slack", url: "${env:DATASYNC_SECRET_OPS_SLACK_URL}" });
    expect(exported.alert_rules?.[0]).toEqual({ slug: "crm-failing", name: "CRM failing", sync: "to-crm", condition: "run_failed", threshold: null, channels: ["ops-slack", "on-call"], enabled: true });
    expect(exported.syncs?.map((s) => s.run_after)).toEqual([[], ["to-crm"], ["second"]]);

    // A new workspace: a channel's URL is needed, by reference, like a connector's secret.
    const other = await newMember("Admin");
    const secrets = { DATASYNC_SECRET_WAREHOUSE_CREDENTIALS_PASSWORD: "a", DATASYNC_SECRET_CRM_CREDENTIALS_PASSWORD: "b" };
    const missing = await applyConfig(other.auth, doc({ ...exported, secrets })).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationFailed);
    expect((missing as ValidationFailed).errors?.map((e) => e.path)).toEqual(["alert_channels.0.url"]);
    await applyConfig(other.auth, doc({ ...exported, secrets: { ...secrets, DATASYNC_SECRET_OPS_SLACK_URL: `${SLACK}2` } }));
    expect(await exportConfig(other.auth)).toBe(text);
    expect(await edges(other.workspaceId)).toEqual(["Second after To CRM", "Third after Second"]);
    const copied = await prisma().alertChannel.findFirstOrThrow({ where: { workspaceId: other.workspaceId, channelType: "slack" } });
    expect(channelConfig(copied).url).toBe(`${SLACK}2`);
  });

  it("updates, reverses a run_after edge in one apply, and prunes only the alert kinds the file lists", async () => {
    const member = await newMember("Admin");
    await applyConfig(member.auth, doc(ALERTS));
    const changed = structuredClone(ALERTS);
    // To CRM now runs after Second, which no longer runs after it: valid once both lists change.
    changed.syncs = [sync("to-crm", "To CRM", ["second"]), sync("second", "Second", []), sync("third", "Third", ["second"])];
    changed.alert_rules![1].threshold = 45;
    changed.secrets = { ...DOC.secrets, DATASYNC_SECRET_OPS_SLACK_URL: `${SLACK}-new` };
    const plan = await applyConfig(member.auth, doc(changed));
    expect(plan.changes.map((c) => `${c.action} ${c.kind} ${c.slug} ${c.fields.map((f) => f.field).join(",")}`)).toEqual([
      "update syncs to-crm run_after",
      "update syncs second run_after",
      "update alert_channels ops-slack url",
      "update alert_rules slow threshold",
    ]);
    expect(plan.changes[2].fields).toEqual([{ field: "url", secret: true }]);
    expect(plan.changes[3].fields).toEqual([{ field: "threshold", before: 30, after: 45 }]);
    expect(await edges(member.workspaceId)).toEqual(["Third after Second", "To CRM after Second"]);

    const pruned = await applyConfig(member.auth, doc({ version: 1, prune: true, alert_rules: [changed.alert_rules![1]] }));
    expect(pruned.changes.map((c) => `${c.action} ${c.kind} ${c.slug}`)).toEqual(["delete alert_rules crm-failing"]);
    expect(await prisma().alertChannel.count({ where: { workspaceId: member.workspaceId } })).toBe(2);
    // A channel a kept rule still sends to is the API's 409, naming the entry; nothing is deleted.
    const err = await applyConfig(member.auth, doc({ version: 1, prune: true, alert_channels: [] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Conflict);
    expect((err as Conflict).message).toMatch(/^Deleting alert channel "on-call": Alert channel \d+ is used by the rule\(s\) "Slow"/);
    expect(await prisma().alertChannel.count({ where: { workspaceId: member.workspaceId } })).toBe(2);
  });

  it("refuses a run_after cycle with the API's 422, naming the entry, and writes nothing", async () => {
    const member = await newMember("Admin");
    await applyConfig(member.auth, doc(ALERTS));
    const cyclic = structuredClone(ALERTS);
    cyclic.syncs![0] = sync("to-crm", "To CRM", ["third"]);
    cyclic.alert_rules![1].name = "Renamed";
    const err = await applyConfig(member.auth, doc(cyclic)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).message).toMatch(
      /^Updating sync "to-crm": Validation failed: syncs\.0\.run_after: would make a cycle: sync \d+ "To CRM" → sync \d+ "Second" → sync \d+ "Third" → sync \d+ "To CRM"; a sync cannot wait on a sync that waits on it$/,
    );
    expect((err as ValidationFailed).errors?.map((e) => e.path)).toEqual(["syncs.0.run_after"]);
    expect((await planConfig(member.auth, doc(cyclic)).catch((e: unknown) => e)) instanceof ValidationFailed).toBe(true);
    expect(await edges(member.workspaceId)).toEqual(["Second after To CRM", "Third after Second"]);
    expect(await prisma().alertRule.count({ where: { workspaceId: member.workspaceId, name: "Renamed" } })).toBe(0);
    const self = structuredClone(ALERTS);
    self.syncs![1] = sync("second", "Second", ["second"]);
    expect(((await applyConfig(member.auth, doc(self)).catch((e: unknown) => e)) as ValidationFailed).message).toMatch(/syncs\.1\.run_after: sync \d+ "Second" cannot run after itself$/);
  });

  it("cannot reach another workspace's syncs or channels by their slugs", async () => {
    const owner = await newMember("Admin");
    await applyConfig(owner.auth, doc({ ...ALERTS, syncs: [sync("foreign-sync", "Foreign sync")], alert_rules: [] }));
    const member = await newMember("Admin");
    const attack = structuredClone(DOC);
    attack.syncs = [sync("to-crm", "To CRM", ["foreign-sync"])];
    attack.alert_rules = [{ slug: "r", name: "R", sync: "foreign-sync", condition: "run_failed", channels: ["ops-slack"] }];
    const err = await applyConfig(member.auth, doc(attack)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationFailed);
    expect((err as ValidationFailed).errors?.map((e) => e.path)).toEqual(["syncs.0.run_after.0", "alert_rules.0.sync", "alert_rules.0.channels.0"]);
    expect(await counts(member.workspaceId)).toMatchObject({ connectors: 0, syncs: 0 });
  });

  it("needs the alert permission for the alert kinds", async () => {
    const viewer = await newMember("Viewer", admin.workspaceId);
    const err = await planConfig(viewer.auth, doc({ version: 1, alert_channels: ALERTS.alert_channels, secrets: ALERTS.secrets })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Forbidden);
    expect((err as Forbidden).message).toBe('Your role (Viewer) may not create alert channels ("ops-slack", "on-call"); nothing was changed.');
    expect(await exportConfig(viewer.auth, ["alert_channels", "alert_rules"])).toContain("alert_rules:");
  });
});
