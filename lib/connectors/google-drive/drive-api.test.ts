// The Drive API client and the unstructured reader against the Drive emulator on 127.0.0.1.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startDriveEmulator, SHEET_MIME, type DriveEmulator } from "@/tests/emulators/google-drive";
import { credentialsJson, DRIVE_CLIENT_EMAIL, DRIVE_PUBLIC_KEY, driveConfig, OTHER_PRIVATE_KEY } from "@/tests/support/google-drive-fixtures";
import type { Row } from "../types";
import { DriveApi, driveString } from "./drive-api";
import { parseCommand, previewUnstructured, readUnstructured } from "./unstructured";

let drive: DriveEmulator;
let folder: string;
const api = (over: Row = {}) => new DriveApi(driveConfig(drive.url, over), 5000, 10);

beforeAll(async () => {
  drive = await startDriveEmulator({ clientEmail: DRIVE_CLIENT_EMAIL, publicKey: DRIVE_PUBLIC_KEY, pageCap: 2 });
  folder = drive.addFolder("Exports");
  drive.addFolder("It's \\ odd");
  drive.putFile(folder, "a.txt", "hello", "text/plain");
  drive.putFile(folder, "b.json", '{"x":1}', "application/json");
  drive.putFile(folder, "c.png", Buffer.from([0x89, 0x50, 0x4e, 0x47]), "image/png");
  drive.putFile(folder, "d.csv", "id\n1\n", "text/csv");
  drive.putFile(folder, "sheet", "id,name\n1,Ada\n", SHEET_MIME);
  drive.putFile(folder, "big.txt", "x".repeat(5000), "text/plain");
});
afterAll(() => drive.close());
beforeEach(() => {
  process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1,::1";
  drive.failures.length = 0;
});

describe("Drive API client", () => {
  it("escapes names in queries", () => {
    expect(driveString("It's \\ odd")).toBe("'It\\'s \\\\ odd'");
  });

  it("finds a folder by name, also one with quotes and backslashes", async () => {
    expect(await api().folderId("Exports")).toBe(folder);
    expect(await api().folderId("It's \\ odd")).toMatch(/^fold/);
    await expect(api().folderId("Nope")).rejects.toThrow(`No folder named "Nope" is visible to the service account ${DRIVE_CLIENT_EMAIL}: share the folder with it.`);
  });

  it("lists every file of the folder across pages", async () => {
    const names: string[] = [];
    for await (const f of api().files(folder)) names.push(f.name);
    expect(names).toEqual(["a.txt", "b.json", "big.txt", "c.png", "d.csv", "sheet"]);
    const pages = drive.requests.filter((r) => r.url.includes("pageToken="));
    expect(pages.length).toBeGreaterThanOrEqual(2);
  });

  it("waits out 429 and 403 rate limits (Retry-After), and says a 404", async () => {
    drive.failures.push({ status: 429, reason: "rateLimitExceeded", retryAfter: 1 }, { status: 403, reason: "userRateLimitExceeded" }, { status: 500, reason: "backendError" });
    const started = Date.now();
    expect(await api().folderId("Exports")).toBe(folder);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await expect(api().download({ id: "missing", name: "x.csv", mimeType: "text/csv" })).rejects.toThrow('Google Drive has no file "x.csv" (or the service account cannot see it).');
  });

  it("refuses a key that is not the service account's, without showing it", async () => {
    const err = await api({ credentials_json: credentialsJson(drive.url, OTHER_PRIVATE_KEY) }).folderId("Exports").catch((e: Error) => e);
    expect((err as Error).message).toBe("Google Drive refused the service account (invalid_grant: Invalid JWT Signature.).");
  });

  it("downloads content, and exports a Google Sheet as CSV", async () => {
    const text = async (name: string) => {
      let found;
      for await (const f of api().files(folder)) if (f.name === name) found = f;
      const chunks: Buffer[] = [];
      for await (const c of await api().download(found!)) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString();
    };
    expect(await text("a.txt")).toBe("hello");
    expect(await text("sheet")).toBe("id,name\n1,Ada\n");
  });
});

describe("unstructured rows", () => {
  it("understands the reference's commands and nothing else", () => {
    expect(parseCommand(" list_files ")).toEqual({ kind: "list" });
    expect(parseCommand("download_file 'a.txt'")).toEqual({ kind: "one", name: "a.txt" });
    expect(() => parseCommand("SELECT 1")).toThrow("An unstructured Google Drive model's query is `list_files`");
  });

  it("gives one row per file: text for text, base64 for bytes, nothing over the cap", async () => {
    const { rows, columns } = await previewUnstructured(api(), "Exports", "list_files", 10, 1024);
    expect(columns.map((c) => c.name)).toEqual(["element_id", "file_name", "file_path", "size", "file_type", "mime_type", "created_date", "modified_date", "text", "content_base64"]);
    const byName = Object.fromEntries(rows.map((r) => [r.file_name, r]));
    expect(byName["a.txt"]).toMatchObject({ text: "hello", content_base64: null, size: 5, file_type: "txt", mime_type: "text/plain" });
    expect(byName["c.png"]).toMatchObject({ text: null, content_base64: "iVBORw==" });
    expect(byName["big.txt"]).toMatchObject({ text: null, content_base64: null, size: 5000 });
    expect(byName.sheet).toMatchObject({ text: "id,name\n1,Ada\n", file_type: "csv" });
    expect(drive.requests.some((r) => r.url.includes("big.txt"))).toBe(false);
  });

  it("reads incrementally by modified_date, in batches", async () => {
    const all: Row[] = [];
    for await (const batch of readUnstructured(api(), "Exports", { query: "list_files", batchSize: 4, cursorField: "modified_date", cursorValue: null }, 1024)) {
      expect(batch.length).toBeLessThanOrEqual(4);
      all.push(...batch);
    }
    expect(all).toHaveLength(6);
    const dates = all.map((r) => String(r.modified_date));
    expect([...dates].sort()).toEqual(dates);
    const later: Row[] = [];
    for await (const batch of readUnstructured(api(), "Exports", { query: "list_files", batchSize: 10, cursorField: "modified_date", cursorValue: dates[4] }, 1024)) later.push(...batch);
    expect(later.map((r) => r.modified_date)).toEqual(dates.slice(4));
  });

  it("stops when the read is canceled", async () => {
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of readUnstructured(api(), "Exports", { query: "list_files", batchSize: 1, signal: controller.signal }, 1024)) controller.abort();
    })();
    await expect(reading).rejects.toThrow(/stopped|canceled/);
  });
});
