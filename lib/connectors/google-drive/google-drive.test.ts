// The GoogleDrive source against the Drive emulator (tests/emulators/google-drive.ts), structured
// files read through the file layer (copies in a private temporary directory, DuckDB in its child).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDriveEmulator, SHEET_MIME, type DriveEmulator } from "@/tests/emulators/google-drive";
import { credentialsJson, DRIVE_CLIENT_EMAIL, DRIVE_PRIVATE_KEY, DRIVE_PUBLIC_KEY, driveConfig, OTHER_PRIVATE_KEY } from "@/tests/support/google-drive-fixtures";
import type { Row } from "../types";
import { getDefinition, maskSecrets, validateConfiguration } from "../registry";
import { googleDriveSource } from "./source";

const scratch = mkdtempSync(join(tmpdir(), "drive-scratch-"));
process.env.FILES_TEMP_DIR = scratch;
let drive: DriveEmulator;
let folder: string;
const config = (over: Row = {}) => driveConfig(drive.url, over);
const leftovers = () => readdirSync(scratch);

beforeAll(async () => {
  drive = await startDriveEmulator({ clientEmail: DRIVE_CLIENT_EMAIL, publicKey: DRIVE_PUBLIC_KEY, pageCap: 3 });
  folder = drive.addFolder("Exports");
  drive.putFile(folder, "contacts.csv", `id,email,updated_at\n${Array.from({ length: 1000 }, (_, i) => `${i + 1},u${i + 1}@example.com,2026-01-${String((i % 28) + 1).padStart(2, "0")}`).join("\n")}\n`);
  drive.putFile(folder, "events.jsonl", '{"id":1,"kind":"open"}\n{"id":2,"kind":"click"}\n', "application/x-ndjson");
  drive.putFile(folder, "Budget", "team,amount\nops,12.5\n", SHEET_MIME);
  drive.putFile(folder, "photo.png", Buffer.from([1, 2, 3]), "image/png");
});
afterAll(async () => {
  await drive.close();
  rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  drive.failures.length = 0;
});

describe("GoogleDrive source", () => {
  it("accepts the reference's settings, masks the key, refuses semistructured when saved", () => {
    const d = getDefinition("GoogleDrive", "source")!;
    expect(d.category).toBe("File Storage");
    expect(d.subCategory).toBeUndefined();
    expect(validateConfiguration(d, { credentials_json: credentialsJson("https://oauth2.googleapis.com") })).toEqual([]);
    expect(validateConfiguration(d, config({ data_type: "semistructured" }))).toEqual([{ path: "data_type", message: expect.stringContaining("document extraction model") }]);
    const masked = maskSecrets(config(), d) as { credentials_json: Row };
    expect(masked.credentials_json).toMatchObject({ private_key: "*************", private_key_id: "*************", client_id: "*************", client_email: DRIVE_CLIENT_EMAIL });
  });

  it("checks the folder, and says what is wrong in sentences without the key", async () => {
    expect(await googleDriveSource.check(config())).toEqual({ ok: true, details: `Connected to Google Drive as ${DRIVE_CLIENT_EMAIL}: folder "Exports" has 4 files.` });
    expect((await googleDriveSource.check(config({ folder_name: "Missing" }))).details).toBe(`No folder named "Missing" is visible to the service account ${DRIVE_CLIENT_EMAIL}: share the folder with it.`);
    const wrong = await googleDriveSource.check(config({ credentials_json: credentialsJson(drive.url, OTHER_PRIVATE_KEY) }));
    expect(wrong).toEqual({ ok: false, details: "Google Drive refused the service account (invalid_grant: Invalid JWT Signature.)." });
    expect((await googleDriveSource.check(config({ folder_name: undefined }))).details).toContain("folder_name is required");
    expect((await googleDriveSource.check(config({ data_type: "semistructured" }))).details).toContain("semistructured needs a document extraction model");
    for (const r of [wrong]) expect(r.details).not.toContain(DRIVE_PRIVATE_KEY.slice(40, 80));
    // Every request goes through the outbound guard: the API base and the key's token endpoint.
    expect((await googleDriveSource.check(config({ base_url: "http://169.254.169.254" }))).details).toContain("cloud metadata service");
    expect((await googleDriveSource.check(config({ credentials_json: { ...credentialsJson(drive.url), token_uri: "http://169.254.169.254/token" } }))).details).toContain("cloud metadata service");
  });

  it("discovers the folder's data files (a Sheet as CSV) with DuckDB's types", async () => {
    const catalog = await googleDriveSource.discover(config());
    expect(catalog.streams.map((s) => s.name).sort()).toEqual(["Budget.csv", "contacts.csv", "events.jsonl"]);
    expect(leftovers()).toEqual([]);
  });

  it("previews and reads through rate limits, in batches, incrementally", async () => {
    drive.failures.push({ status: 429, reason: "rateLimitExceeded", retryAfter: 1 });
    const preview = await googleDriveSource.query!(config(), 'SELECT team, amount FROM "Budget.csv"', 5);
    expect(preview.rows).toHaveLength(1);
    expect(preview.rows[0]).toMatchObject({ team: "ops" });
    const batches: number[] = [];
    for await (const b of googleDriveSource.read(config(), { query: 'SELECT * FROM "contacts.csv"', batchSize: 300 })) batches.push(b.length);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(Math.max(...batches)).toBeLessThanOrEqual(300);
    let later = 0;
    for await (const b of googleDriveSource.read(config(), { query: 'SELECT id, updated_at FROM "contacts.csv"', batchSize: 300, cursorField: "updated_at", cursorValue: "2026-01-28" })) later += b.length;
    expect(later).toBe(Math.floor((1000 - 28) / 28) + 1);
    expect(leftovers()).toEqual([]);
  }, 60_000);

  it("unstructured: one row per file, fingerprinted for change detection", async () => {
    const unstructured = config({ data_type: "unstructured" });
    expect((await googleDriveSource.discover(unstructured)).streams.map((s) => [s.name, s.primary_key])).toEqual([["unstructured", ["element_id"]]]);
    const { rows } = await googleDriveSource.query!(unstructured, "list_files", 10);
    expect(rows.map((r) => r.file_name).sort()).toEqual(["Budget", "contacts.csv", "events.jsonl", "photo.png"]);
    const fingerprints = async () => {
      const out: string[] = [];
      for await (const b of googleDriveSource.readFingerprinted!(unstructured, { query: "list_files", batchSize: 10, fingerprint: { seed: "x", primaryKey: "element_id" } })) out.push(...b.fingerprints);
      return out;
    };
    expect(await fingerprints()).toEqual(await fingerprints());
    expect(() => googleDriveSource.checkQuery!("list_files")).not.toThrow();
    expect(() => googleDriveSource.checkQuery!('SELECT * FROM "contacts.csv"')).not.toThrow();
    expect(() => googleDriveSource.checkQuery!("DROP TABLE x")).toThrow();
  });

  it("stops a structured read when canceled and leaves no copy", async () => {
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of googleDriveSource.read(config(), { query: 'SELECT * FROM "contacts.csv"', batchSize: 100, signal: controller.signal })) controller.abort();
    })();
    await expect(reading).rejects.toThrow();
    expect(leftovers()).toEqual([]);
  }, 60_000);
});
