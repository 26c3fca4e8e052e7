// The Sftp source and destination against a real OpenSSH server (tests/support/sshd.ts), reading
// through the file layer (files/: copies in a private temporary directory, DuckDB in its child).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSshd, sshdUnavailable, type SshdServer } from "@/tests/support/sshd";
import type { Row, Stream, WriteRecord } from "../types";
import { getDefinition, maskSecrets, validateConfiguration } from "../registry";
import { sftpSource } from "./source";
import { sftpDestination } from "./destination";

const why = sshdUnavailable();
let sshd: SshdServer;
const ROWS = 50_000;
// The file layer's temporary directory (FILES_TEMP_DIR): every operation's copies must be gone after it.
const scratch = mkdtempSync(join(tmpdir(), "sftp-scratch-"));
process.env.FILES_TEMP_DIR = scratch;

const source = (over: Row = {}): Row => ({
  host: sshd.host,
  port: sshd.port,
  username: sshd.username,
  password: sshd.password,
  file_path: "exports",
  file_name: "contacts",
  format_type: "csv",
  ...over,
});
const destination = (over: Row = {}): Row => ({
  host: sshd.host,
  port: sshd.port,
  username: sshd.username,
  password: sshd.password,
  destination_path: "imports",
  file_name: "people",
  format: { format_type: "csv", compression_type: "un_compressed" },
  ...over,
});
const leftovers = () => readdirSync(scratch);

function contactsCsv(changedId?: number): string {
  const lines = ["id,email,score,updated_at"];
  for (let i = 1; i <= ROWS; i++) lines.push(`${i},${i === changedId ? "changed" : `u${i}`}@example.com,${(i % 100) / 4},2026-01-${String((i % 28) + 1).padStart(2, "0")}T00:00:00Z`);
  return `${lines.join("\n")}\n`;
}

async function collect(gen: AsyncIterable<Row[]>): Promise<{ rows: number; batches: number[]; first?: Row; last?: Row }> {
  const batches: number[] = [];
  let first: Row | undefined;
  let last: Row | undefined;
  for await (const batch of gen) {
    batches.push(batch.length);
    first ??= batch[0];
    last = batch[batch.length - 1];
  }
  return { rows: batches.reduce((a, b) => a + b, 0), batches, first, last };
}

describe.skipIf(!!why)(why ? `Sftp connectors (real OpenSSH) (skipped: ${why})` : "Sftp connectors (real OpenSSH)", () => {
  beforeAll(async () => {
    sshd = await startSshd();
    sshd.put("exports/contacts.csv", contactsCsv());
    sshd.put("exports/other.csv", "a,b\n1,2\n");
    sshd.put("imports/.keep", "");
  }, 30_000);
  afterAll(async () => {
    await sshd?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  beforeEach(() => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1";
  });

  it("accepts the reference's settings unchanged and masks the password", () => {
    const src = getDefinition("Sftp", "source")!;
    expect(src).toMatchObject({ category: "File Storage", subCategory: "Relational Database" });
    expect(getDefinition("Sftp", "destination")).toMatchObject({ category: "File Storage" });
    expect(getDefinition("Sftp", "destination")!.subCategory).toBeUndefined();
    expect(validateConfiguration(src, { host: "h", username: "u", password: "p", file_path: "/x", file_name: "f", format_type: "csv" })).toEqual([]);
    expect(validateConfiguration(getDefinition("Sftp", "destination")!, { host: "h", username: "u", password: "p", destination_path: "/x", format: { format_type: "csv" } })).toEqual([]);
    expect(validateConfiguration(src, { ...source(), host_key_fingerprint: "md5:aa" })).toEqual([{ path: "host_key_fingerprint", message: expect.stringContaining("SHA256:") }]);
    expect(maskSecrets(source({ private_key: "k" }), src)).toMatchObject({ password: "*************", private_key: "*************" });
  });

  it("checks the configured file, and reports the host key to pin", async () => {
    expect(await sftpSource.check(source())).toEqual({
      ok: true,
      details: `Connected to 127.0.0.1:${sshd.port} as ${sshd.username} (host key ${sshd.hostKeyFingerprint}; set host_key_fingerprint to it to pin it); "exports/contacts.csv" has ${contactsCsv().length} bytes.`,
    });
    expect((await sftpSource.check(source({ file_name: "missing" }))).details).toContain('there is no file "exports/missing.csv" there');
  });

  it("says a wrong password or a wrong host key in a sentence, never echoing the secret", async () => {
    const bad = await sftpSource.check(source({ password: "wrong-password-123" }));
    expect(bad).toEqual({ ok: false, details: `The SFTP server at 127.0.0.1:${sshd.port} refused user "${sshd.username}": wrong password or key.` });
    const pinned = `SHA256:${"B".repeat(43)}`;
    const key = await sftpSource.check(source({ host_key_fingerprint: pinned }));
    expect(key.ok).toBe(false);
    expect(key.details).toContain(`presented host key ${sshd.hostKeyFingerprint}, not the configured ${pinned}`);
    // A password that shows up in a path the server echoes is scrubbed.
    const echoed = await sftpSource.discover(source({ file_name: sshd.password })).catch((e: Error) => e.message);
    expect(echoed).not.toContain(sshd.password);
  });

  it("discovers the configured file with DuckDB's column types", async () => {
    const catalog = await sftpSource.discover(source());
    expect(catalog.streams.map((s) => s.name)).toEqual(["contacts.csv"]);
    const props = (catalog.streams[0].json_schema as { properties: Record<string, { type: unknown }> }).properties;
    expect(Object.keys(props)).toEqual(["id", "email", "score", "updated_at"]);
    expect(props.id.type).toEqual(expect.arrayContaining(["integer"]));
    expect(leftovers()).toEqual([]);
  });

  it("previews a model query, also over another file of the directory", async () => {
    const preview = await sftpSource.query!(source(), 'SELECT id, email FROM "contacts.csv" ORDER BY id', 3);
    expect(preview.rows).toEqual([
      { id: 1, email: "u1@example.com" },
      { id: 2, email: "u2@example.com" },
      { id: 3, email: "u3@example.com" },
    ]);
    expect((await sftpSource.query!(source(), "SELECT * FROM 'other.csv'", 10)).rows).toEqual([{ a: 1, b: 2 }]);
    await expect(sftpSource.query!(source(), "SELECT * FROM read_csv('/etc/passwd')", 10)).rejects.toThrow();
    expect(() => sftpSource.checkQuery!("DELETE FROM x")).toThrow();
    expect(leftovers()).toEqual([]);
  });

  it(`reads ${ROWS} rows in batches with bounded memory, then incrementally`, async () => {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    const all = await collect(sftpSource.read(source(), { query: 'SELECT * FROM "contacts.csv"', batchSize: 2000 }));
    expect(all.rows).toBe(ROWS);
    expect(Math.max(...all.batches)).toBeLessThanOrEqual(2000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200 * 1024 * 1024);
    const incremental = await collect(
      sftpSource.read(source(), { query: 'SELECT id, updated_at FROM "contacts.csv"', batchSize: 5000, cursorField: "updated_at", cursorValue: "2026-01-28T00:00:00Z" }),
    );
    // Days 1..28 cycle: ids with i % 28 == 27 are on the 28th.
    expect(incremental.rows).toBe(Math.floor((ROWS - 27) / 28) + 1);
    expect(leftovers()).toEqual([]);
  }, 240_000);

  it("stops a read when the run is canceled, and leaves no copy behind", async () => {
    const controller = new AbortController();
    let batches = 0;
    const reading = (async () => {
      for await (const _ of sftpSource.read(source(), { query: 'SELECT * FROM "contacts.csv"', batchSize: 1000, signal: controller.signal })) {
        batches++;
        controller.abort();
      }
    })();
    await expect(reading).rejects.toThrow();
    expect(batches).toBeLessThanOrEqual(2);
    expect(leftovers()).toEqual([]);
  }, 60_000);

  it("fingerprints rows: an unchanged file gives the same fingerprints, a changed row another", async () => {
    const fp = async () => {
      const out: string[] = [];
      for await (const b of sftpSource.readFingerprinted!(source(), { query: 'SELECT id, email FROM "contacts.csv" WHERE id <= 100', batchSize: 100, fingerprint: { seed: "s", primaryKey: "id" } })) out.push(...b.fingerprints);
      return out;
    };
    const a = await fp();
    expect(await fp()).toEqual(a);
    sshd.put("exports/contacts.csv", contactsCsv(42));
    const b = await fp();
    expect(b.filter((x, i) => x !== a[i])).toHaveLength(1);
    sshd.put("exports/contacts.csv", contactsCsv());
  }, 240_000);

  describe("destination", () => {
    const stream: Stream = { name: "sftp", url: "sftp", json_schema: {}, batch_support: true, batch_size: 10_000, request_method: "POST" };
    const records = (n: number, from = 1): WriteRecord[] =>
      Array.from({ length: n }, (_, i) => ({ key: String(from + i), action: "upsert" as const, payload: { id: from + i, name: i === 0 ? 'Ada, "the" first' : `P${from + i}`, tags: ["a", "b"], none: null } }));
    const importsDir = () => join(sshd.root, "imports");
    const csvFiles = () => readdirSync(importsDir()).filter((f) => f !== ".keep").sort();

    it("checks by writing and removing a file in destination_path", async () => {
      const ok = await sftpDestination.check(destination());
      expect(ok.ok).toBe(true);
      expect(ok.details).toContain('"imports" takes new files');
      expect(csvFiles()).toEqual([]);
      expect((await sftpDestination.check(destination({ destination_path: "nope" }))).ok).toBe(false);
    });

    it("writes a batch as one CSV file, every record's outcome from the upload, idempotent on retry", async () => {
      const batch = records(3);
      const outcomes = await sftpDestination.write(destination(), batch, { stream, batch: true });
      expect(outcomes.map((o) => [o.key, o.ok])).toEqual([
        ["1", true],
        ["2", true],
        ["3", true],
      ]);
      const files = csvFiles();
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^people_[0-9a-f]{16}\.csv$/);
      expect(readFileSync(join(importsDir(), files[0]), "utf8")).toBe('id,name,tags,none\n1,"Ada, ""the"" first","[""a"",""b""]",\n2,P2,"[""a"",""b""]",\n3,P3,"[""a"",""b""]",\n');
      expect(outcomes[0].log?.request.line).toBe(`PUT sftp://127.0.0.1/imports/${files[0]} (row 1 of 3)`);
      // The same batch again (a retry) replaces its own file.
      await sftpDestination.write(destination(), batch, { stream, batch: true });
      expect(csvFiles()).toEqual(files);
      expect(leftovers()).toEqual([]);
    });

    it("zips when asked, refuses deletes per record, and fails a batch it cannot upload as retryable", async () => {
      const zipped = await sftpDestination.write(destination({ format: { format_type: "csv", compression_type: "zip" } }), records(2, 10), { stream, batch: true });
      expect(zipped.every((o) => o.ok)).toBe(true);
      const zip = csvFiles().find((f) => f.endsWith(".zip"))!;
      expect(zip).toMatch(/^people_[0-9a-f]{16}\.zip$/);
      if (existsSync("/usr/bin/unzip")) expect(execFileSync("unzip", ["-p", join(importsDir(), zip)], { encoding: "utf8" })).toContain('10,"Ada, ""the"" first"');
      const del = await sftpDestination.write(destination(), [{ key: "9", action: "delete", payload: { id: 9 } }], { stream, batch: true });
      expect(del).toEqual([{ key: "9", ok: false, error: "The SFTP destination writes files: it cannot delete a row from a file already written.", retryable: false }]);
      const stopped = await sftpDestination.write(destination({ port: 1 }), records(2, 20), { stream, batch: true });
      expect(stopped.every((o) => !o.ok && o.retryable)).toBe(true);
      expect(stopped[0].error).toContain("was not written: Nothing accepts connections at 127.0.0.1:1");
      const refused = await sftpDestination.write(destination({ password: "wrong-password-123" }), records(1, 30), { stream, batch: true });
      expect(refused[0]).toMatchObject({ ok: false, retryable: false });
      expect(JSON.stringify(refused)).not.toContain("wrong-password-123");
      expect(csvFiles().some((f) => f.endsWith(".part"))).toBe(false);
      expect(leftovers()).toEqual([]);
    });
  });
});
