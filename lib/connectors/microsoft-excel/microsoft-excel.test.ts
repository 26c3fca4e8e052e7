// Microsoft Excel destination against the Microsoft Graph workbook emulator (tests/emulators/microsoft-excel.ts) on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startExcelEmulator } from "@/tests/emulators/microsoft-excel";
import { microsoftExcelDestination as excel, splitStreamName } from "./destination";

const TOKEN = "eyJ0eXAiOiJKV1QiLCJub25jZSI6ImVtdWxhdG9yIn0.graph-token-value";
const PEOPLE = "{0A1B2C3D-0001}";
let graph: Awaited<ReturnType<typeof startExcelEmulator>>;
let stream: Stream;
const config = (overrides: Row = {}): Row => ({ token: TOKEN, base_url: graph.url, timeout: 5, ...overrides });
const person = (i: number): Row => ({ Email: `user${i}@example.com`, Name: `User ${i}`, Score: i * 1.5 });
const adds = () => graph.requests.filter((r) => r.method === "POST");

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  // Two files a page: discovery must follow @odata.nextLink.
  graph = await startExcelEmulator({ token: TOKEN, pageSize: 2 });
  [stream] = (await excel.discover(config())).streams;
});
afterAll(() => graph.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  graph.reset();
  graph.window.max = Number.POSITIVE_INFINITY;
  graph.requests.length = 0;
});

describe("Microsoft Excel destination", () => {
  it("checks the token against the user's drive, with Graph's reason when refused", async () => {
    expect(await excel.check(config())).toEqual({ ok: true, details: "Connected to Microsoft Graph: the business drive of Ada Lovelace." });
    expect(await excel.check(config({ token: "expired-token" }))).toEqual({
      ok: false,
      details: "Microsoft Excel rejected the credentials. Microsoft Excel answered HTTP 401: InvalidAuthenticationToken: Access token validation failure. Invalid audience.",
    });
  });

  it("discovers a stream per worksheet with a table, named '<file>, <sheet>', with the table's columns", async () => {
    const catalog = await excel.discover(config());
    expect(catalog.streams.map((s) => s.name)).toEqual(["Contacts.xlsx, People", "Budget, 2026.xlsm, Q1"]);
    expect(stream).toMatchObject({ name: "Contacts.xlsx, People", batch_size: 500, action: "create" });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["Email", "Name", "Score"]);
    expect(catalog).toMatchObject({ request_rate_limit: 6000, request_rate_limit_unit: "minute" });
    expect(excel.definition.writeModes).toEqual(["insert"]);
    expect(splitStreamName("Budget, 2026.xlsm, Q1")).toEqual({ file: "Budget, 2026.xlsm", sheet: "Q1" });
  });

  it("appends rows in the table's column order with one rows/add, formulas kept as text", async () => {
    const batch = records(3, person, "insert");
    batch[1].payload = { Name: "=HYPERLINK(\"http://evil.example\")", Email: "b@example.com" };
    const { outcomes } = await loadThrough(excel, config(), stream, batch);
    expect(outcomes.every((o) => o.ok && o.status === 201)).toBe(true);
    expect(adds()).toHaveLength(1);
    expect(adds()[0].url).toBe(`/v1.0/drives/b!x8emulatorDrive01/items/01EMULATORCONTACTS/workbook/tables/${encodeURIComponent(PEOPLE)}/rows/add`);
    expect(parseBody(adds()[0])).toEqual({
      index: null,
      values: [
        ["user1@example.com", "User 1", 1.5],
        ["b@example.com", "'=HYPERLINK(\"http://evil.example\")", ""],
        ["user3@example.com", "User 3", 4.5],
      ],
    });
    expect(graph.table(PEOPLE).rows).toHaveLength(3);
  });

  it("fails bad records alone: unknown columns and objects before sending, and Graph's refusal pinned by bisection", async () => {
    const batch = records(8, person, "insert");
    batch[1].payload.Shoe = 44;
    batch[3].payload.Name = { first: "A" };
    batch[5].payload.Score = "\u0000ds:n:12345678901234567890";
    batch[6].payload.Score = "\u0000ds:n:12.50";
    const { outcomes } = await loadThrough(excel, config(), stream, batch);
    expect(outcomes.filter((o) => !o.ok).map((o) => [o.key, o.error])).toEqual([
      ["2", 'Column "Shoe" is not a column of the table {0A1B2C3D-0001} in "Contacts.xlsx, People".'],
      ["4", 'Column "Name" holds {"first":"A"}, which an Excel cell cannot hold (text, a number or true/false).'],
      ["6", 'Column "Score" holds 12345678901234567890, which an Excel cell cannot hold exactly (15 significant digits, no NaN or infinity); map it to text, or round it in the model.'],
    ]);
    expect(graph.table(PEOPLE).rows).toHaveLength(5);
    expect(graph.table(PEOPLE).rows[3]).toEqual(["user7@example.com", "User 7", 12.5]);

    graph.requests.length = 0;
    const long = records(6, person, "insert");
    long[4].payload.Name = "x".repeat(40_000);
    const second = await loadThrough(excel, config(), stream, long);
    expect(second.outcomes.filter((o) => !o.ok).map((o) => o.key)).toEqual(["5"]);
    expect(second.outcomes.find((o) => o.key === "5")).toMatchObject({
      status: 400,
      retryable: false,
      error: "Microsoft Excel answered HTTP 400: InvalidArgument: The argument is invalid or missing or has an incorrect format.",
    });
    expect(graph.table(PEOPLE).rows).toHaveLength(10);
  });

  it("a sheet without a table or a missing workbook fails the records with a sentence", async () => {
    const [noTable] = await excel.write(config(), records(1, person, "insert"), { stream: { ...stream, name: "Contacts.xlsx, Notes" }, batch: true });
    expect(noTable).toMatchObject({ ok: false, error: 'The sheet "Notes" of "Contacts.xlsx" has no table: insert one (Insert, Table) with the columns as its header row.' });
    const [noFile] = await excel.write(config(), records(1, person, "insert"), { stream: { ...stream, name: "Gone.xlsx, People" }, batch: true });
    expect(noFile).toMatchObject({ ok: false, error: 'There is no workbook "Gone.xlsx" in the drive\'s root folder.' });
  });

  it("reports a 429 with its Retry-After, which the engine waits out off the worker", async () => {
    // A write reads 5 resources first (drive, two listing pages, the sheet's tables, the columns):
    // the sixth request, the rows/add, is throttled; the next write's first read is.
    graph.window.max = 5;
    const [throttled] = await excel.write(config(), records(1, person, "insert"), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, retryAfterSeconds: 3, error: "Microsoft Excel answered HTTP 429: TooManyRequests: Please retry after" });
    const before = graph.requests.length;
    const { longWaits, outcomes } = await loadThrough(excel, config(), stream, records(1, person, "insert"), { longWaitMs: 1000 });
    expect(outcomes[0]).toMatchObject({ ok: false, retryable: true });
    expect(longWaits).toEqual([{ waitMs: expect.any(Number), cause: "retry" }]);
    expect(longWaits[0].waitMs).toBeGreaterThanOrEqual(3000);
    expect(graph.requests.length).toBe(before + 1);
    graph.window.max = Number.POSITIVE_INFINITY;
    expect((await loadThrough(excel, config(), stream, records(1, person, "insert"))).outcomes[0].ok).toBe(true);
  });

  it("masks the token everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("MicrosoftExcel", "destination")!;
    expect(maskSecrets(config(), definition).token).toBe(SECRET_MASK);
    const outcomes = await excel.write(config(), records(2, person, "insert"), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toContain(TOKEN);
    expect(graph.requests[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(() => mergeMaskedSecrets({ ...config(), token: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const [outcome] = await excel.write(config(), records(1, person, "insert"), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(graph.requests).toHaveLength(0);
  });
});
