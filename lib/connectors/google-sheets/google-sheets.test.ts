// Google Sheets destination against the Sheets API emulator (tests/emulators/google-sheets.ts) on 127.0.0.1.
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Row, Stream } from "../types";
import { getDefinition, maskSecrets, mergeMaskedSecrets, SECRET_MASK, SecretTargetChangedError, validateConfiguration } from "../registry";
import { loadThrough, parseBody, records } from "@/tests/emulators/common";
import { startSheetsEmulator } from "@/tests/emulators/google-sheets";
import { columnLetters, googleSheetsDestination } from "./destination";

const EMAIL = "sync@project.iam.gserviceaccount.com";
const keys = generateKeyPairSync("rsa", { modulusLength: 2048 });
const PRIVATE_KEY = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
let gs: Awaited<ReturnType<typeof startSheetsEmulator>>;
let stream: Stream;
const account = (privateKey = PRIVATE_KEY) => JSON.stringify({ type: "service_account", client_email: EMAIL, private_key: privateKey, token_uri: `${gs.url}/token` });
const config = (overrides: Row = {}): Row => ({ service_account: account(), spreadsheet_id: "sheet123", sheet: "People", key_column: "email", base_url: gs.url, timeout: 5, ...overrides });
const person = (i: number): Row => ({ email: `p${i}@example.com`, name: `Person ${i}`, score: i });
const valueWrites = () => gs.requests.filter((r) => r.url.endsWith("/values:batchUpdate"));

beforeAll(async () => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  gs = await startSheetsEmulator({ clientEmail: EMAIL, publicKey: keys.publicKey.export({ type: "spki", format: "pem" }).toString(), spreadsheetId: "sheet123", sheet: "People", header: ["email", "name", "score", "notes"] });
  [stream] = (await googleSheetsDestination.discover(config())).streams;
});
afterAll(() => gs.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  gs.requests.length = 0;
  gs.grid.length = 1;
  gs.state.rowCount = 1000;
  gs.state.writes.max = 60;
  gs.state.writes.reset();
});

describe("Google Sheets destination", () => {
  it("names columns like A1 notation", () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetters)).toEqual(["A", "Z", "AA", "AB", "ZZ", "AAA"]);
  });

  it("checks the service account (a signed JWT) against the spreadsheet", async () => {
    expect(await googleSheetsDestination.check(config())).toEqual({ ok: true, details: 'Connected to spreadsheet "Emulated spreadsheet".' });
    const wrongKey = await googleSheetsDestination.check(config({ service_account: account(other) }));
    expect(wrongKey).toEqual({ ok: false, details: "Google Sheets refused the service account (invalid_grant: Invalid JWT Signature.)." });
    expect(wrongKey.details).not.toContain("PRIVATE KEY");
    expect((await googleSheetsDestination.check(config({ service_account: "{not json" }))).details).toBe("The service account key is not valid JSON: paste the whole key file.");
  });

  it("takes the reference's settings (credentials_json as an object, spreadsheet_link): the first column is the key", async () => {
    const keyFile = { ...JSON.parse(account()), project_id: "p", private_key_id: "k1", client_id: "1", auth_uri: "https://accounts.google.com/o/oauth2/auth", auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs", client_x509_cert_url: "https://www.googleapis.com/robot/v1/metadata/x509/x", universe_domain: "googleapis.com" };
    const reference: Row = { credentials_json: keyFile, spreadsheet_link: "https://docs.google.com/spreadsheets/d/sheet123/edit#gid=0", sheet: "People", base_url: gs.url, timeout: 5 };
    expect(validateConfiguration(googleSheetsDestination.definition, reference)).toEqual([]);
    expect(await googleSheetsDestination.check(reference)).toEqual({ ok: true, details: 'Connected to spreadsheet "Emulated spreadsheet".' });
    const [discovered] = (await googleSheetsDestination.discover(reference)).streams;
    expect(discovered.primary_key).toEqual(["email"]);
    const outcomes = await googleSheetsDestination.write(reference, records(2, person), { stream: discovered, batch: true });
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(gs.grid.slice(1).map((row) => row[0])).toEqual(["p1@example.com", "p2@example.com"]);
    const masked = maskSecrets(reference, googleSheetsDestination.definition) as { credentials_json: Row };
    expect(masked.credentials_json).toMatchObject({ private_key: SECRET_MASK, client_email: EMAIL });
  });

  it("discovers the sheet's columns from its first row, keyed by the key column", async () => {
    expect(stream).toMatchObject({ name: "People", primary_key: ["email"], batch_size: 500 });
    expect(Object.keys((stream.json_schema as { properties: Row }).properties)).toEqual(["email", "name", "score", "notes"]);
    await expect(googleSheetsDestination.discover(config({ key_column: "id" }))).rejects.toThrow('The first row of "People" has no column "id".');
  });

  it("appends new keys and updates existing rows in place, leaving unmapped columns alone", async () => {
    await googleSheetsDestination.write(config(), records(2, person), { stream, batch: true });
    gs.grid[1][3] = "kept note";
    const outcomes = await googleSheetsDestination.write(config(), [{ key: "9", action: "upsert", payload: { email: "p1@example.com", name: "Renamed", score: null } }, { key: "10", action: "upsert", payload: person(3) }], {
      stream,
      batch: true,
    });
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
    expect(gs.grid).toEqual([
      ["email", "name", "score", "notes"],
      ["p1@example.com", "Renamed", "", "kept note"],
      ["p2@example.com", "Person 2", 2],
      ["p3@example.com", "Person 3", 3],
    ]);
    expect(parseBody(valueWrites()[1])).toEqual({
      valueInputOption: "RAW",
      data: [
        { range: "'People'!A2", majorDimension: "ROWS", values: [["p1@example.com", "Renamed", "", null]] },
        { range: "'People'!A4", majorDimension: "ROWS", values: [["p3@example.com", "Person 3", 3, null]] },
      ],
    });
    expect(outcomes[1].log?.response.body).toMatchObject({ updatedRange: "'People'!A4" });
  });

  it("fails a record with an unknown column or an oversized cell alone, with Sheets' wording", async () => {
    const batch = records(3, person);
    batch[0].payload.nickname = "P";
    batch[2].payload.notes = "x".repeat(50_001);
    const outcomes = await googleSheetsDestination.write(config(), batch, { stream, batch: true });
    expect(outcomes.find((o) => o.key === "1")).toMatchObject({ ok: false, error: 'The sheet\'s first row has no column "nickname".' });
    expect(outcomes.find((o) => o.key === "3")).toMatchObject({ ok: false, error: "Your input contains more than the maximum of 50000 characters in a single cell (column notes)." });
    expect(outcomes.find((o) => o.key === "2")?.ok).toBe(true);
    expect(gs.grid.map((r) => r[0])).toEqual(["email", "p2@example.com"]);
  });

  it("grows the grid for new rows, and keeps requests within 500 rows", async () => {
    gs.state.rowCount = 100;
    const { outcomes } = await loadThrough(googleSheetsDestination, config(), stream, records(1200, person));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(gs.grid).toHaveLength(1201);
    expect(valueWrites().map((r) => (parseBody(r) as { data: unknown[] }).data.length)).toEqual([500, 500, 200]);
    expect(gs.state.rowCount).toBeGreaterThanOrEqual(1201);
  });

  it("reports a 429 (per-minute write quota) as a minute's wait, which the engine takes off the worker", async () => {
    gs.state.writes.max = 0;
    const [throttled] = await googleSheetsDestination.write(config(), records(1, person), { stream, batch: true });
    expect(throttled).toMatchObject({ ok: false, status: 429, retryable: true, error: expect.stringContaining("RESOURCE_EXHAUSTED: Quota exceeded") });
    expect(throttled.retryAfterSeconds).toBeGreaterThan(0);
    const { longWaits } = await loadThrough(googleSheetsDestination, config(), stream, records(1, person), { longWaitMs: 100 });
    expect(longWaits).toEqual([{ waitMs: throttled.retryAfterSeconds! * 1000, cause: "retry" }]);
  });

  it("fetches a new token after a 401 and retries", async () => {
    await googleSheetsDestination.write(config(), records(1, person), { stream, batch: true });
    gs.expireTokens();
    const { outcomes } = await loadThrough(googleSheetsDestination, config(), stream, records(2, person));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true]);
  });

  it("masks the key everywhere and keeps it off a new base URL", async () => {
    const definition = getDefinition("GoogleSheets", "destination")!;
    expect(maskSecrets(config(), definition).service_account).toBe(SECRET_MASK);
    const outcomes = await googleSheetsDestination.write(config(), records(2, person), { stream, batch: true });
    expect(JSON.stringify(outcomes)).not.toMatch(/PRIVATE KEY|ya29\./);
    expect(() => mergeMaskedSecrets({ ...config(), service_account: SECRET_MASK, base_url: "https://elsewhere.example" }, config(), definition)).toThrow(SecretTargetChangedError);
  });

  it("obeys the outbound network policy, for the token request too", async () => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "";
    const fresh = JSON.stringify({ client_email: "other@p.iam.gserviceaccount.com", private_key: other, token_uri: `${gs.url}/token` });
    const [outcome] = await googleSheetsDestination.write(config({ service_account: fresh }), records(1, person), { stream, batch: true });
    expect(outcome).toMatchObject({ ok: false, retryable: false, error: expect.stringMatching(/private, loopback or link-local/) });
    expect(gs.requests).toHaveLength(0);
  });
});
