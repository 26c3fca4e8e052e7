// Redis destination against the real server at REDIS_URL (default redis://127.0.0.1:6379): check,
// discover, stream and hash writes read back with XRANGE/HGETALL, per-record failures from the
// server's replies, retries through the engine's Loader, the net policy and masked secrets.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@redis/client";
import type { DestinationConnector, Row, WriteRecord } from "../types";
import { closedPort, streamFor, uniqueName } from "@/tests/support/connectors";
import { Loader } from "@/lib/engine/load";
import { maskSecrets, validateConfiguration } from "../registry";
import { redisDestination } from "./destination";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const prefix = uniqueName("dsync_test");
const admin = createClient({ url: REDIS_URL });
const stream = streamFor("stream_entries");
const configs: Row[] = [];

function config(overrides: Row = {}): Row {
  const c = { url: REDIS_URL, mode: "stream", key_template: `${prefix}:events`, timeout: 5, ...overrides };
  configs.push(c);
  return c;
}

const records: WriteRecord[] = [
  { key: "1", action: "insert", payload: { id: 1, name: "Ada", tags: ["a", "b"] } },
  { key: "2", action: "insert", payload: { id: 2, name: "Linus", tags: [] } },
];

beforeAll(async () => {
  admin.on("error", () => undefined);
  await admin.connect();
});
afterAll(async () => {
  for (const c of configs) await redisDestination.close?.(c);
  const keys = await admin.keys(`${prefix}*`);
  if (keys.length > 0) await admin.del(keys);
  await admin.close();
});
afterEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
});

describe("Redis destination", () => {
  it("checks a live server and names what failed otherwise", async () => {
    const ok = await redisDestination.check(config());
    expect(ok.ok).toBe(true);
    expect(ok.details).toMatch(/^Connected to Redis \d+\.\d+/);
    const refused = await redisDestination.check(config({ url: `redis://127.0.0.1:${await closedPort()}` }));
    expect(refused).toMatchObject({ ok: false });
    expect(refused.details).toMatch(/ECONNREFUSED/);
    const badPassword = await redisDestination.check(
      config({ username: "nobody", password: "not-the-password-xyz" }),
    );
    expect(badPassword.ok).toBe(false);
    expect(badPassword.details).not.toContain("not-the-password-xyz");
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const loopback = await redisDestination.check(config());
    expect(loopback.ok).toBe(false);
    expect(loopback.details).toMatch(/private, loopback or link-local/);
    const [outcome] = await redisDestination.write(
      config({ url: "redis://localhost:6379" }),
      records.slice(0, 1),
      { stream, batch: true },
    );
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.error).toMatch(/not allowed/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "*";
    const metadata = await redisDestination.check(config({ url: "redis://169.254.169.254:6379" }));
    expect(metadata.details).toMatch(/cloud metadata/);
  });

  it("discovers one schemaless stream", async () => {
    const catalog = await redisDestination.discover(config({ rate_limit_per_second: 50 }));
    expect(catalog.schema_mode).toBe("schemaless");
    expect(catalog.streams).toHaveLength(1);
    expect(catalog.streams[0]).toMatchObject({
      name: "stream_entries",
      action: "create",
      batch_support: false,
      batch_size: 1,
      request_rate_limit: 50,
      request_rate_limit_unit: "second",
    });
    // Without a limit, batches of batch_size.
    expect((await redisDestination.discover(config({ batch_size: 20 }))).streams[0]).toMatchObject({
      batch_support: true,
      batch_size: 20,
    });
  });

  it("adds one stream entry per record to the templated key and reads them back", async () => {
    const c = config({ key_template: `${prefix}:{{ name | downcase }}` });
    const outcomes = await redisDestination.write(c, records, { stream, batch: true });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(outcomes[0].log?.response.line).toMatch(/^XADD: entry \d+-\d+$/);
    const ada = await admin.xRange(`${prefix}:ada`, "-", "+");
    expect(ada?.map((e) => e.message)).toEqual([{ id: "1", name: "Ada", tags: '["a","b"]' }]);
    expect(await admin.xLen(`${prefix}:linus`)).toBe(1);
  });

  it("writes hashes by key and deletes a deleted record's hash", async () => {
    const c = config({ mode: "hash", key_template: `${prefix}:customer:{{ id }}` });
    await redisDestination.write(c, records, { stream, batch: true });
    expect(await admin.hGetAll(`${prefix}:customer:1`)).toEqual({ id: "1", name: "Ada", tags: '["a","b"]' });
    const [updated, deleted] = await redisDestination.write(
      c,
      [
        { key: "1", action: "update", payload: { id: 1, name: "Ada L." } },
        { key: "2", action: "delete", payload: { id: 2 } },
      ],
      { stream, batch: true },
    );
    expect([updated.ok, deleted.ok]).toEqual([true, true]);
    expect((await admin.hGetAll(`${prefix}:customer:1`)).name).toBe("Ada L.");
    expect(await admin.exists(`${prefix}:customer:2`)).toBe(0);
  });

  it("leaves a NULL out: no stream field, and a hash field removed (the text \"null\" stays text)", async () => {
    const h = config({ mode: "hash", key_template: `${prefix}:nulls:{{ id }}` });
    await redisDestination.write(h, [{ key: "1", action: "upsert", payload: { id: 1, name: "Ada", note: "x" } }], { stream, batch: true });
    const [outcome] = await redisDestination.write(h, [{ key: "1", action: "upsert", payload: { id: 1, name: null, note: "null" } }], { stream, batch: true });
    expect(outcome.ok).toBe(true);
    expect(await admin.hGetAll(`${prefix}:nulls:1`)).toEqual({ id: "1", note: "null" });
    // Nothing but NULLs: the fields go, nothing is written.
    const fixed = config({ mode: "hash", key_template: `${prefix}:nulls:1` });
    await redisDestination.write(fixed, [{ key: "1", action: "upsert", payload: { note: null } }], { stream, batch: true });
    expect(await admin.hGetAll(`${prefix}:nulls:1`)).toEqual({ id: "1" });
    // A MULTI's refusal is the server's sentence, not "1 commands failed".
    await admin.set(`${prefix}:nulls:2`, "a string");
    const [refused] = await redisDestination.write(h, [{ key: "2", action: "upsert", payload: { id: 2, name: null } }], { stream, batch: true });
    expect(refused).toMatchObject({ ok: false, retryable: false });
    expect(refused.error).toMatch(/^WRONGTYPE/);
    const s = config({ key_template: `${prefix}:nulls_stream` });
    await redisDestination.write(s, [{ key: "1", action: "insert", payload: { id: 1, name: null } }], { stream, batch: true });
    expect(((await admin.xRange(`${prefix}:nulls_stream`, "-", "+")) ?? []).map((e) => e.message ?? {})).toEqual([{ id: "1" }]);
  });

  it("fails only the records the server refuses, with its error", async () => {
    await admin.set(`${prefix}:taken`, "a string");
    const c = config({ key_template: `{% if target != "" %}${prefix}:{{ target }}{% endif %}` });
    const outcomes = await redisDestination.write(
      c,
      [
        { key: "a", action: "insert", payload: { target: "taken", n: 1 } },
        { key: "b", action: "insert", payload: { target: "free", n: 2 } },
        { key: "c", action: "insert", payload: { target: "", n: 3 } },
      ],
      { stream, batch: true },
    );
    const byKey = Object.fromEntries(outcomes.map((o) => [o.key, o]));
    expect(byKey.a).toMatchObject({ ok: false, retryable: false });
    expect(byKey.a.error).toMatch(/WRONGTYPE/);
    expect(byKey.b.ok).toBe(true);
    expect(byKey.c).toMatchObject({ ok: false, retryable: false });
    expect(await admin.xLen(`${prefix}:free`)).toBe(1);
  });

  it("marks an unreachable server retryable and recovers through the engine's retries", async () => {
    const [down] = await redisDestination.write(
      config({ url: `redis://127.0.0.1:${await closedPort()}` }),
      records.slice(0, 1),
      { stream, batch: true },
    );
    expect(down).toMatchObject({ ok: false, retryable: true, status: 0 });

    // Writes pause on the server longer than the first attempt waits for its reply: that attempt
    // times out (retryable), a later one is acknowledged.
    const c = config({ mode: "hash", key_template: `${prefix}:retry:{{ id }}`, timeout: 0.3 });
    await redisDestination.check(c);
    let attempts = 0;
    const counting: DestinationConnector = {
      ...redisDestination,
      write: (...args) => (attempts++, redisDestination.write(...args)),
    };
    await admin.sendCommand(["CLIENT", "PAUSE", "900", "WRITE"]);
    // No reply in time: the record fails with that, retryable (the command may still run later).
    const [unanswered] = await redisDestination.write(c, records.slice(1, 2), { stream, batch: true });
    expect(unanswered).toMatchObject({ ok: false, retryable: true, status: 0 });
    expect(unanswered.error).toBe("The broker did not acknowledge the HSET within 0.3 s.");
    const loader = new Loader({
      destination: counting,
      config: c,
      stream,
      batch: true,
      batchSize: 10,
      concurrency: 1,
      maxAttempts: 6,
      baseDelayMs: 400,
    });
    const outcomes = await loader.load(records.slice(0, 1));
    expect(outcomes.get("1")?.ok).toBe(true);
    expect(attempts).toBeGreaterThan(1);
    expect(await admin.hGet(`${prefix}:retry:1`, "name")).toBe("Ada");
  });

  it("replaces a connection the server dropped, failing what was in flight as retryable", async () => {
    const c = config({ mode: "hash", key_template: `${prefix}:dropped:{{ id }}` });
    expect((await redisDestination.write(c, records.slice(0, 1), { stream, batch: true }))[0].ok).toBe(true);
    const ours = (await admin.sendCommand<string>(["CLIENT", "LIST"]))
      .split("\n")
      .filter((line) => / name=datasync /.test(line));
    expect(ours.length).toBeGreaterThan(0);
    for (const line of ours)
      await admin.sendCommand(["CLIENT", "KILL", "ID", /(?:^| )id=(\d+)/.exec(line)![1]]);
    const [during] = await redisDestination.write(c, records.slice(1, 2), { stream, batch: true });
    expect(during.ok || during.retryable).toBe(true);
    const [after] = await redisDestination.write(c, records.slice(1, 2), { stream, batch: true });
    expect(after.ok).toBe(true);
    expect(await admin.hGet(`${prefix}:dropped:2`, "name")).toBe("Linus");
  });

  it("masks the password and refuses one inside the URL", () => {
    const { definition } = redisDestination;
    expect(maskSecrets({ url: "redis://h:6379", password: "hunter2-secret" }, definition)).toEqual({
      url: "redis://h:6379",
      password: "*************",
    });
    expect(
      validateConfiguration(definition, {
        url: "redis://user:pw@h:6379",
        mode: "stream",
        key_template: "k",
      }).map((e) => e.path),
    ).toEqual(["url"]);
    expect(
      validateConfiguration(definition, { url: "redis://h:6379", mode: "stream", key_template: "k" }),
    ).toEqual([]);
  });
});
