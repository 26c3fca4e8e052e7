// The Odoo source and destination against the Odoo JSON-RPC emulator (tests/emulators/odoo.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { FingerprintedBatch, Row, Stream } from "../types";
import { getDefinition, maskSecrets, SECRET_MASK } from "../registry";
import { loadThrough, records } from "@/tests/emulators/common";
import { startHttpServer } from "@/tests/support/connectors";
import { odooNow, startOdooEmulator } from "@/tests/emulators/odoo";
import { odooDestination } from "./destination";
import { odooSource } from "./source";
import { parseOdooQuery } from "./query";

const PASSWORD = "odoo-api-key-5f3c9a1e77";
let odoo: Awaited<ReturnType<typeof startOdooEmulator>>;
const config = (overrides: Row = {}): Row => ({ url: odoo.url, database: "acme", username: "sync@acme.test", password: PASSWORD, timeout: 5, ...overrides });

async function readAll(options: { query: string; batchSize: number; cursorField?: string; cursorValue?: string | null }, given: Row = config()): Promise<Row[][]> {
  const batches: Row[][] = [];
  for await (const batch of odooSource.read(given, options)) batches.push(batch);
  return batches;
}

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  odoo = await startOdooEmulator({ database: "acme", login: "sync@acme.test", password: PASSWORD });
});
afterAll(() => odoo.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  odoo.reset();
  odoo.window.max = Number.POSITIVE_INFINITY;
  odoo.window.windowMs = 60_000;
});

describe("Odoo connection", () => {
  it("checks the login with Odoo's version, and says why a login is refused, without the password", async () => {
    expect(await odooSource.check(config())).toEqual({ ok: true, details: 'Connected to Odoo 17.0, database "acme", as sync@acme.test (user id 2).' });
    expect(await odooDestination.check(config())).toMatchObject({ ok: true });
    expect(await odooSource.check(config({ password: "wrong-password" }))).toEqual({
      ok: false,
      details: 'Odoo refused the login of "sync@acme.test" to database "acme": wrong username, password or database.',
    });
    const noDb = await odooDestination.check(config({ database: "other" }));
    expect(noDb.ok).toBe(false);
    expect(noDb.details).toContain('database "other" does not exist');
  });

  it("never shows the password, even from a server that echoes what it was sent", async () => {
    const echo = await startHttpServer((req, res) => {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(`you sent ${req.body}`);
    });
    try {
      const checked = await odooSource.check(config({ url: echo.url }));
      expect(checked.ok).toBe(false);
      expect(echo.requests.length).toBeGreaterThan(0);
      expect(checked.details).toContain("HTTP 400");
      expect(checked.details).not.toContain(PASSWORD);
      const [outcome] = await odooDestination.write(config({ url: echo.url }), records(1, () => ({ name: "A" }), "insert"), { stream: { name: "res.partner" } as Stream, batch: true });
      expect(outcome.ok).toBe(false);
      expect(JSON.stringify(outcome)).not.toContain(PASSWORD);
    } finally {
      await echo.close();
    }
    expect(maskSecrets(config(), getDefinition("Odoo", "source")!).password).toBe(SECRET_MASK);
    expect(maskSecrets(config(), getDefinition("Odoo", "destination")!).password).toBe(SECRET_MASK);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const checked = await odooSource.check(config());
    expect(checked).toMatchObject({ ok: false, details: expect.stringMatching(/private, loopback or link-local/) });
    expect(odoo.calls).toHaveLength(0);
  });
});

describe("Odoo destination", () => {
  let stream: Stream;
  beforeAll(async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
    const catalog = await odooDestination.discover(config());
    stream = catalog.streams.find((s) => s.name === "res.partner")!;
  });

  it("discovers the models (no wizards) with their writable fields; required ones required", async () => {
    const catalog = await odooDestination.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["res.partner", "res.partner.category"]);
    expect(stream).toMatchObject({ action: "create", batch_support: true, batch_size: 100, request_method: "POST" });
    const schema = stream.json_schema as { required: string[]; properties: Record<string, Row> };
    expect(Object.keys(schema.properties)).toEqual(["name", "email", "is_company", "credit_limit", "parent_id", "category_id"]);
    expect(schema.required).toEqual(["name"]);
    expect(schema.properties.name.type).toBe("string");
    expect(schema.properties.parent_id.type).toEqual(["integer", "null"]);
    expect(schema.properties.category_id).toMatchObject({ type: ["array", "null"], items: { type: "integer" } });
    expect(odooDestination.definition.writeModes).toEqual(["insert"]);
  });

  it("creates records in one call, each outcome from Odoo's ids; bad records fail alone with Odoo's reason", async () => {
    odoo.seed("res.partner.category", [{ id: 500, name: "VIP" }]);
    odoo.seed("res.partner", [{ id: 600, name: "Acme Corp", is_company: true }]);
    const batch = records(10, (i) => ({ name: `Person ${i}`, email: `p${i}@example.com`, credit_limit: i * 10, parent_id: "600", category_id: "[500]" }), "insert");
    batch[2].payload.email = "not-an-address"; // Odoo's constraint refuses the call: bisection pins it
    batch[5].payload.shoe_size = 44; // not a field: fails before sending
    batch[7].payload.parent_id = "Acme Corp"; // a many2one takes an id
    const { outcomes } = await loadThrough(odooDestination, config(), stream, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(["3", "6", "8"]);
    expect(outcomes.find((o) => o.key === "3")).toMatchObject({ retryable: false, error: "Odoo refused the record: Invalid Email! Please enter a valid email address: not-an-address (odoo.exceptions.ValidationError)" });
    expect(outcomes.find((o) => o.key === "6")?.error).toBe('Column "shoe_size" is not a field of the Odoo model res.partner.');
    expect(outcomes.find((o) => o.key === "8")?.error).toBe('Column "parent_id" is a many2one of Odoo: it takes a record id, not "Acme Corp".');
    const created = odoo.tables.get("res.partner")!.filter((r) => r.id !== 600);
    expect(created.map((r) => String(r.name)).sort()).toEqual(["Person 1", "Person 10", "Person 2", "Person 4", "Person 5", "Person 7", "Person 9"]);
    expect(created[0]).toMatchObject({ parent_id: 600, category_id: [500], credit_limit: 10 });
    const first = odoo.calls.find((c) => c.modelMethod === "create")!;
    expect((first.args[5] as unknown[][])[0]).toHaveLength(8);
    expect(outcomes.find((o) => o.key === "1")?.log?.response.line).toMatch(/^created res.partner id \d+$/);
  });

  it("a missing required field is Odoo's ValidationError for that record", async () => {
    const [outcome] = await odooDestination.write(config(), records(1, () => ({ email: "x@example.com" }), "insert"), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false });
    expect(outcome.error).toMatch(/^Odoo refused the record: The operation cannot be completed: - Create\/update: a mandatory field is not set\..*Field: Name \(name\) \(odoo\.exceptions\.ValidationError\)$/s);
  });

  it("a throttled call (HTTP 429) comes back retryable with its Retry-After, and goes through after the wait", async () => {
    odoo.window.max = 4;
    odoo.window.windowMs = 1500;
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(...(await odooDestination.write(config(), records(1, () => ({ name: `T${i}` }), "insert"), { stream, batch: true })));
    const throttled = outcomes.find((o) => !o.ok);
    expect(throttled).toMatchObject({ status: 429, retryable: true, retryAfterSeconds: 2 });
    expect(throttled?.error).toMatch(/HTTP 429/);
    const { outcomes: after } = await loadThrough(odooDestination, config(), stream, records(2, (i) => ({ name: `Later ${i}` }), "insert"));
    expect(after.every((o) => o.ok)).toBe(true);
  });

  it("keeps a hostile server's long refusal out of every record: cut, one shared log part per call, no bisection on a non-answer", async () => {
    const batch = records(100, (i) => ({ name: `H${i}` }), "insert");
    // 4 MiB refusal: longer than a create answer may be, so it is not read, and not split on.
    odoo.hostile.faultBytes = 4 * 1024 * 1024;
    const big = await odooDestination.write(config(), batch, { stream, batch: true });
    expect(big.every((o) => !o.ok && o.error !== undefined && o.error.length < 3000)).toBe(true);
    expect(odoo.calls.filter((c) => c.modelMethod === "create")).toHaveLength(1);
    expect(JSON.stringify(big).length).toBeLessThan(100 * 6000);
    // A refusal that fits is cut to 2 KiB in the error and in the log.
    odoo.reset();
    odoo.hostile.faultBytes = 200_000;
    const cut = await odooDestination.write(config(), records(2, (i) => ({ name: `C${i}` }), "insert"), { stream, batch: true });
    for (const o of cut) {
      expect(o.error).toMatch(/^Odoo refused the record: Refused: x+… \(\d+ more characters\) \(odoo\.exceptions\.ValidationError\)$/);
      expect(o.error!.length).toBeLessThan(2200);
      expect(String(o.log?.response.body).length).toBeLessThan(2200);
    }
    // An answer that is no list of ids: shown cut, and the records of the call share one response part.
    odoo.reset();
    odoo.hostile.createAnswer = "y".repeat(500_000);
    const odd = await odooDestination.write(config(), records(10, (i) => ({ name: `O${i}` }), "insert"), { stream, batch: true });
    expect(odd.every((o) => !o.ok && o.error!.length < 400)).toBe(true);
    expect(odd[1].log?.response).toBe(odd[0].log?.response);
    expect(String(odd[0].log?.response.body).length).toBeLessThan(2200);
  });
});

describe("Odoo source", () => {
  const seedPartners = (n: number, writeDate: (i: number) => string = () => odooNow()) =>
    odoo.seed(
      "res.partner",
      Array.from({ length: n }, (_, k) => ({ id: k + 1, name: `P${k + 1}`, email: k % 3 === 0 ? false : `p${k + 1}@example.com`, is_company: k % 2 === 0, parent_id: k > 0 ? 1 : false, write_date: writeDate(k + 1) })),
    );

  it("discovers every model (no wizards) with all its fields and id as key", async () => {
    const catalog = await odooSource.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["res.partner", "res.partner.category"]);
    const partner = catalog.streams[0];
    expect(partner.primary_key).toEqual(["id"]);
    const props = (partner.json_schema as { properties: Record<string, Row> }).properties;
    expect(Object.keys(props)).toContain("write_date");
    expect(props.id.type).toEqual(["integer", "null"]);
    expect(props.is_company.type).toBe("boolean");
  });

  it("streams a model in pages of the batch size, in id order, with Odoo's empty values as null and many2one as the id", async () => {
    seedPartners(250);
    const batches = await readAll({ query: "SELECT id, name, email, is_company, parent_id FROM res.partner", batchSize: 100 });
    expect(batches.map((b) => b.length)).toEqual([100, 100, 50]);
    const rows = batches.flat();
    expect(rows.map((r) => r.id)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(rows[0]).toEqual({ id: 1, name: "P1", email: null, is_company: true, parent_id: null });
    expect(rows[1]).toEqual({ id: 2, name: "P2", email: "p2@example.com", is_company: false, parent_id: 1 });
    // Keyset paging: every page after the first asks for ids past the last one read.
    const reads = odoo.calls.filter((c) => c.modelMethod === "search_read");
    expect(reads.map((c) => (c.args[5] as unknown[])[0])).toEqual([[], [["id", ">", 100]], [["id", ">", 200]]]);
    expect(await readAll({ query: "SELECT name FROM res.partner LIMIT 5 OFFSET 10", batchSize: 2 })).toEqual([[{ name: "P11" }, { name: "P12" }], [{ name: "P13" }, { name: "P14" }], [{ name: "P15" }]]);
  });

  it("reads incrementally on write_date: from the cursor on, every record once even when many share a timestamp", async () => {
    seedPartners(40, (i) => `2026-01-0${1 + (i % 4)} 10:00:00`);
    const all = (await readAll({ query: "SELECT id, name FROM res.partner", batchSize: 7, cursorField: "write_date" })).flat();
    expect(all).toHaveLength(40);
    expect(new Set(all.map((r) => r.id)).size).toBe(40);
    expect(all.map((r) => r.write_date)).toEqual([...all.map((r) => String(r.write_date))].sort());
    const later = (await readAll({ query: "SELECT id, name FROM res.partner", batchSize: 7, cursorField: "write_date", cursorValue: "2026-01-04 10:00:00" })).flat();
    expect(later.map((r) => r.id)).toEqual([3, 7, 11, 15, 19, 23, 27, 31, 35, 39]);
    await expect(readAll({ query: "SELECT id FROM res.partner", batchSize: 7, cursorField: "category_id" })).rejects.toThrow(/is an Odoo many2many field, which cannot be compared/);
  });

  it("stops a server that answers the same records again, instead of paging forever", async () => {
    seedPartners(5);
    odoo.hostile.repeatPage = true;
    await expect(readAll({ query: "SELECT id, name FROM res.partner", batchSize: 5 })).rejects.toThrow(/Odoo answered record id 1 after record id 5, out of the read's order \(id\)/);
    await expect(readAll({ query: "SELECT id, name FROM res.partner", batchSize: 5, cursorField: "write_date" })).rejects.toThrow(/out of the read's order \(write_date, id\)/);
    expect(odoo.calls.filter((c) => c.modelMethod === "search_read")).toHaveLength(4);
  });

  it("stops a read at max_pages and at read_timeout when the server keeps making up full pages", async () => {
    odoo.hostile.endless = true;
    await expect(readAll({ query: "SELECT id, name FROM res.partner", batchSize: 10 }, config({ max_pages: 3 }))).rejects.toThrow(/more than 3 pages of 10 records \(max_pages\)/);
    expect(odoo.calls.filter((c) => c.modelMethod === "search_read")).toHaveLength(3);
    const realNow = Date.now.bind(Date);
    let shift = 0;
    const clock = vi.spyOn(Date, "now").mockImplementation(() => realNow() + shift);
    try {
      const read = odooSource.read(config({ read_timeout: 10 }), { query: "SELECT id FROM res.partner", batchSize: 10 })[Symbol.asyncIterator]();
      expect((await read.next()).value).toHaveLength(10);
      shift = 11_000;
      await expect(read.next()).rejects.toThrow(/longer than 10 s \(read_timeout\)/);
    } finally {
      clock.mockRestore();
    }
  });

  it("waits out a 429 (Retry-After) and carries on", async () => {
    seedPartners(30);
    odoo.window.max = 3;
    odoo.window.windowMs = 1500;
    const rows = (await readAll({ query: "SELECT id FROM res.partner", batchSize: 10 })).flat();
    expect(rows).toHaveLength(30);
    expect(odoo.calls.length).toBeGreaterThan(6); // version-free: login, fields_get, 3 pages, plus the throttled tries
  });

  it("fingerprints rows: equal rows, equal fingerprints; a changed row, another", async () => {
    seedPartners(5);
    const options = { query: "SELECT id, name FROM res.partner", batchSize: 10, fingerprint: { seed: "s1", primaryKey: "id" } };
    const first: FingerprintedBatch[] = [];
    for await (const b of odooSource.readFingerprinted!(config(), options)) first.push(b);
    odoo.tables.get("res.partner")![1].name = "Changed";
    const second: FingerprintedBatch[] = [];
    for await (const b of odooSource.readFingerprinted!(config(), options)) second.push(b);
    expect(first[0].keyValues).toEqual([1, 2, 3, 4, 5]);
    expect(second[0].fingerprints.filter((f, i) => f !== first[0].fingerprints[i])).toHaveLength(1);
    expect(second[0].row(1)).toEqual({ id: 2, name: "Changed" });
  });

  it("previews a model query and refuses what is not one", async () => {
    seedPartners(20);
    const preview = await odooSource.query!(config(), "SELECT id, name, parent_id FROM res.partner ORDER BY id desc LIMIT 3", 100);
    expect(preview).toEqual({
      columns: [
        { name: "id", type: "integer" },
        { name: "name", type: "char" },
        { name: "parent_id", type: "many2one" },
      ],
      rows: [
        { id: 20, name: "P20", parent_id: 1 },
        { id: 19, name: "P19", parent_id: 1 },
        { id: 18, name: "P18", parent_id: 1 },
      ],
    });
    await expect(odooSource.query!(config(), "SELECT nope FROM res.partner", 10)).rejects.toThrow('"nope" is not a field of the Odoo model res.partner.');
    await expect(odooSource.query!(config(), "SELECT id FROM sale.order", 10)).rejects.toThrow("Object sale.order doesn't exist (builtins.KeyError)");
    expect(() => odooSource.checkQuery!("SELECT id FROM res.partner WHERE id > 3")).toThrow(/An Odoo model is one model's fields/);
    expect(parseOdooQuery('SELECT * FROM "res.partner" LIMIT 10')).toEqual({ model: "res.partner", fields: [], limit: 10 });
  });
});
