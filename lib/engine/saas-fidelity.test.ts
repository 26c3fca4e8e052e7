// The value model into SaaS destinations (REST kit, rest-kit/values.ts), through the engine, into the
// Airtable and HubSpot emulators (tests/emulators/). A number field takes a number held as exact text
// (numeric, bigint, a jsonb number) as the same JSON number, or the record fails with a sentence
// naming the column and the value (too many digits for a double, NaN, an infinity); text fields take
// every value as its text, a JSON document with its numbers as written; a NULL is sent only for a NULL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { airtableDestination } from "@/lib/connectors/airtable/destination";
import { hubspotDestination } from "@/lib/connectors/hubspot/destination";
import { startAirtableEmulator } from "@/tests/emulators/airtable";
import { startHubspotEmulator } from "@/tests/emulators/hubspot";
import { createScratchDatabase, useTestDatabase } from "@/tests/support/db";
import { executeRun } from "./execute-run";
import { stopEngine, triggerSync } from "./index";
import { createFixture, reloadRun, runRecords, sql } from "./test-support";

useTestDatabase();

const TOKEN = "patEngineValues.0123456789abcdef";
const BASE = "appValues00000001";
let source: { url: string; drop(): Promise<void> };
let air: Awaited<ReturnType<typeof startAirtableEmulator>>;
let hub: Awaited<ReturnType<typeof startHubspotEmulator>>;

beforeAll(async () => {
  source = await createScratchDatabase("ds_saas_values");
  await sql(
    source.url,
    `CREATE TABLE nums (id integer PRIMARY KEY, email text, amount numeric(38,10), f8 double precision, big bigint, doc jsonb, span interval)`,
  );
  await sql(
    source.url,
    `INSERT INTO nums VALUES
      (1, 'one@example.com', 12.5, 0.1, 42, '1.50', '-1 days'),
      (2, 'two@example.com', 9999999999999999999999999999.9999999999, 'NaN', 9007199254740993, '{"big": 12345678901234567890, "dec": 1.50}', '1 year 2 mons 3 days 04:05:06.789'),
      (3, 'three@example.com', 0.0000000001, '-Infinity', -9223372036854775808, '-7', '-00:00:00.000001'),
      (4, 'four@example.com', NULL, NULL, NULL, NULL, NULL)`,
  );
  // Several cases back to back: Airtable's 5 requests per second is not what they are about.
  air = await startAirtableEmulator({ token: TOKEN, baseId: BASE, perSecond: 1000 });
  hub = await startHubspotEmulator({ token: TOKEN, maxPerInterval: 1000, intervalMs: 1000 });
});

afterAll(async () => {
  await air?.close();
  await hub?.close();
  await stopEngine();
  await source?.drop();
});

async function run(f: { workspaceId: number; syncId: number }) {
  const created = await triggerSync(f.workspaceId, f.syncId);
  await executeRun(created.id);
  const records = await runRecords(created.id);
  const byKey = Object.fromEntries(records.map((r) => [r.primaryKey, r.status === "failed" ? r.error : "ok"]));
  return { run: await reloadRun(created.id), byKey };
}

describe("value model into SaaS number and text fields", () => {
  // Per source column into Airtable's number field "Age": what Airtable stores, or the failure.
  const cases: { column: string; arrived: Record<string, number | null>; failed: Record<string, RegExp> }[] = [
    {
      column: "amount",
      arrived: { "one@example.com": 12.5, "three@example.com": 1e-10, "four@example.com": null },
      failed: { "2": /^Column "Age" holds 9999999999999999999999999999\.9999999999, which Airtable cannot hold exactly in a number field \(it would become 1e\+28\)/ },
    },
    {
      column: "f8",
      arrived: { "one@example.com": 0.1, "four@example.com": null },
      failed: { "2": /^Column "Age" holds NaN, which Airtable cannot hold in a number field/, "3": /^Column "Age" holds -Infinity, which Airtable/ },
    },
    {
      column: "big",
      arrived: { "one@example.com": 42, "four@example.com": null },
      failed: { "2": /^Column "Age" holds 9007199254740993, which Airtable cannot hold exactly .*9007199254740992/, "3": /^Column "Age" holds -9223372036854775808,/ },
    },
    // jsonb: a number inside JSON as its text; a document into a number field is Airtable's to refuse.
    { column: "doc", arrived: { "one@example.com": 1.5, "three@example.com": -7, "four@example.com": null }, failed: { "2": /cannot accept the provided value/ } },
  ];

  for (const c of cases) {
    it(`Airtable: ${c.column} into a number field arrives as the same number, or fails naming the column and the value`, async () => {
      const config = { api_key: TOKEN, base_id: BASE, base_url: air.url, timeout: 5 };
      const catalog = await airtableDestination.discover(config);
      air.rows.length = 0;
      const f = await createFixture({
        sourceUrl: source.url,
        destination: { connectorName: "Airtable", config, catalog },
        query: `SELECT id, email, ${c.column} AS age, span FROM nums`,
        sync: {
          configuration: [
            { from: "email", to: "Email", mapping_type: "standard" },
            { from: "age", to: "Age", mapping_type: "standard" },
            { from: "span", to: "Name", mapping_type: "standard" },
          ],
        },
      });
      const { run: r, byKey } = await run(f);
      expect(Object.fromEntries(Object.entries(byKey).filter(([, v]) => v !== "ok"))).toEqual(
        Object.fromEntries(Object.entries(c.failed).map(([k, re]) => [k, expect.stringMatching(re)])),
      );
      expect(r).toMatchObject({ successfulRows: 4 - Object.keys(c.failed).length, failedRows: Object.keys(c.failed).length });
      const stored = Object.fromEntries(air.rows.map((row) => [row.fields.Email, row.fields.Age]));
      expect(stored).toEqual(c.arrived);
      // Intervals are text, as PostgreSQL writes them; a NULL only for a NULL.
      const spans = Object.fromEntries(air.rows.map((row) => [row.fields.Email, row.fields.Name]));
      if (spans["one@example.com"] !== undefined) expect(spans["one@example.com"]).toBe("-1 days");
      expect(spans["four@example.com"]).toBeNull();
    });
  }

  it("HubSpot: exact numbers into a number property, big integers and JSON documents as their exact text into text properties", async () => {
    const config = { access_token: TOKEN, base_url: hub.url, timeout: 10 };
    const catalog = await hubspotDestination.discover(config);
    hub.requests.length = 0;
    const f = await createFixture({
      sourceUrl: source.url,
      destination: { connectorName: "Hubspot", config, catalog },
      query: "SELECT id, email, doc, big, span, CASE WHEN id = 2 THEN 7 ELSE amount END AS amount FROM nums WHERE id IN (1, 2, 4)",
      sync: {
        configuration: [
          { from: "email", to: "email", mapping_type: "standard" },
          { from: "doc", to: "firstname", mapping_type: "standard" },
          { from: "big", to: "lastname", mapping_type: "standard" },
          { from: "span", to: "lifecyclestage", mapping_type: "standard" },
          { from: "amount", to: "num_employees", mapping_type: "standard" },
        ],
      },
    });
    const { run: r, byKey } = await run(f);
    expect(byKey).toEqual({ "1": "ok", "2": "ok", "4": "ok" });
    expect(r).toMatchObject({ successfulRows: 3, failedRows: 0 });
    const props = (email: string) => hub.contacts.get(email)?.properties;
    expect(props("one@example.com")).toMatchObject({ firstname: "1.50", lastname: 42, lifecyclestage: "-1 days", num_employees: 12.5 });
    expect(props("two@example.com")).toMatchObject({ firstname: '{"big":12345678901234567890,"dec":1.50}', lastname: "9007199254740993", lifecyclestage: "1 year 2 mons 3 days 04:05:06.789", num_employees: 7 });
    // HubSpot clears a property with "": the NULL row's, and no other.
    expect(props("four@example.com")).toMatchObject({ firstname: "", lastname: "", lifecyclestage: "", num_employees: "" });
    // The bytes sent: the number inside JSON as written, never the value model's marker.
    const bodies = hub.requests.filter((q) => q.method === "POST").map((q) => q.body).join("\n");
    expect(bodies).not.toContain("ds:n:");
  });
});
