// The SFTP transport against a real OpenSSH server (tests/support/sshd.ts: Debian's sshd on a
// loopback port, a throwaway host key and user): logins, host key pinning, the outbound guard,
// listing, streamed transfers, atomic uploads, timeouts and cancel.
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSshd, sshdUnavailable, type SshdServer } from "@/tests/support/sshd";
import { closedPort } from "@/tests/support/connectors";
import { hostKeyFingerprint, normalizeFingerprint, SftpSession, type SftpTarget } from "./transport";
import { SftpFiles } from "./remote";

const why = sshdUnavailable();
let sshd: SshdServer;
const target = (over: Partial<SftpTarget> = {}): SftpTarget => ({
  host: sshd.host,
  port: sshd.port,
  username: sshd.username,
  password: sshd.password,
  connectTimeoutMs: 10_000,
  operationTimeoutMs: 10_000,
  ...over,
});
const failure = (p: Promise<unknown>) => p.then(() => "no error", (err: Error & { code?: string }) => ({ message: err.message, code: err.code }));

describe.skipIf(!!why)(why ? `SFTP transport (real OpenSSH) (skipped: ${why})` : "SFTP transport (real OpenSSH)", () => {
  beforeAll(async () => {
    sshd = await startSshd();
    sshd.put("data/people.csv", "id,name\n1,Ada\n");
    sshd.put("data/sub/more.csv", "id\n2\n");
  }, 30_000);
  afterAll(() => sshd?.stop());
  beforeEach(() => {
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1";
  });

  it("logs in with the password and reports the host key it saw, as ssh-keygen prints it", async () => {
    const session = await SftpSession.open(target());
    try {
      expect(session.serverFingerprint).toBe(sshd.hostKeyFingerprint);
      expect((await session.stat("data/people.csv"))?.size).toBe(14);
      expect(await session.stat("data/missing.csv")).toBeUndefined();
    } finally {
      await session.close();
    }
  });

  it("logs in with a private key alone", async () => {
    const session = await SftpSession.open(target({ password: undefined, privateKey: sshd.privateKey }));
    await session.close();
  });

  it("says a wrong password in a sentence that does not hold it", async () => {
    const err = await failure(SftpSession.open(target({ password: "not-the-password-123" })));
    expect(err).toEqual({ message: `The SFTP server at 127.0.0.1:${sshd.port} refused user "${sshd.username}": wrong password or key.`, code: "auth_failed" });
  });

  it("refuses a server whose host key is not the pinned one, and accepts the pinned one", async () => {
    const other = `SHA256:${"A".repeat(43)}`;
    const err = await failure(SftpSession.open(target({ hostKeyFingerprint: other })));
    expect(err).toMatchObject({ code: "host_key_mismatch" });
    expect((err as { message: string }).message).toContain(`presented host key ${sshd.hostKeyFingerprint}, not the configured ${other}`);
    const session = await SftpSession.open(target({ hostKeyFingerprint: `${sshd.hostKeyFingerprint}=` }));
    await session.close();
  });

  it("normalizes fingerprints and computes them as OpenSSH does", () => {
    expect(normalizeFingerprint("SHA256:abc")).toBeUndefined();
    expect(normalizeFingerprint(` ${sshd.hostKeyFingerprint} `)).toBe(sshd.hostKeyFingerprint);
    expect(hostKeyFingerprint(Buffer.from("x"))).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it("connects only through the outbound guard", async () => {
    delete process.env.OUTBOUND_ALLOW_PRIVATE;
    const err = await failure(SftpSession.open(target()));
    expect((err as { message: string }).message).toMatch(/private, loopback or link-local addresses .* are not allowed/);
    process.env.OUTBOUND_ALLOW_PRIVATE = "127.0.0.1";
    expect(await failure(SftpSession.open(target({ port: await closedPort() })))).toMatchObject({ code: "sftp_unavailable" });
  });

  it("gives up on a server that never speaks SSH within the connect timeout", async () => {
    const { createServer } = await import("node:net");
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    const port = (silent.address() as { port: number }).port;
    try {
      const err = await failure(SftpSession.open(target({ port, connectTimeoutMs: 1000 })));
      expect((err as { message: string }).message).toBe(`The SFTP server at 127.0.0.1:${port} did not complete the SSH handshake within 1 s.`);
    } finally {
      silent.close();
    }
  });

  it("lists files under a prefix (walking directories), downloads them as streams", async () => {
    const files = new SftpFiles(target(), "data");
    try {
      expect(files.root).toBe("data/");
      expect((await files.list("data/", 100)).map((e) => [e.key, e.size])).toEqual([
        ["data/people.csv", 14],
        ["data/sub/more.csv", 5],
      ]);
      expect((await files.list("data/p", 100)).map((e) => e.key)).toEqual(["data/people.csv"]);
      expect(await files.list("nowhere/", 100)).toEqual([]);
      const chunks: Buffer[] = [];
      for await (const c of await files.download({ key: "data/people.csv", size: 14 })) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe("id,name\n1,Ada\n");
    } finally {
      await files.close();
    }
  });

  it("uploads through a hidden temporary name and replaces the target in one rename", async () => {
    mkdirSync(join(sshd.root, "out"), { recursive: true });
    sshd.own();
    const session = await SftpSession.open(target());
    try {
      await session.upload(Readable.from([Buffer.from("v1\n")]), "out/a.csv");
      await session.upload(Readable.from([Buffer.from("v2\n")]), "out/a.csv");
      expect(readFileSync(join(sshd.root, "out/a.csv"), "utf8")).toBe("v2\n");
      // A source that fails midway leaves neither the target nor a temporary file.
      const broken = new Readable({
        read() {
          this.push("partial");
          this.destroy(new Error("source broke"));
        },
      });
      await expect(session.upload(broken, "out/b.csv")).rejects.toThrow();
      expect(readdirSync(join(sshd.root, "out"))).toEqual(["a.csv"]);
    } finally {
      await session.close();
    }
  });

  it("stops a transfer when the operation is canceled", async () => {
    sshd.put("big.bin", Buffer.alloc(8 * 1024 * 1024, 1));
    const controller = new AbortController();
    const session = await SftpSession.open(target(), controller.signal);
    const dir = await mkdtemp(join(tmpdir(), "sftp-cancel-"));
    try {
      const done = session.download("big.bin", join(dir, "copy"), 64 * 1024 * 1024);
      controller.abort();
      await expect(done).rejects.toThrow("The operation was canceled.");
      await expect(session.list(".")).rejects.toThrow("The operation was canceled.");
    } finally {
      await session.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a download over the size cap before transferring it", async () => {
    const session = await SftpSession.open(target());
    const dir = await mkdtemp(join(tmpdir(), "sftp-cap-"));
    try {
      await expect(session.download("big.bin", join(dir, "copy"), 1024)).rejects.toThrow('"big.bin" is 8388608 bytes, over the 1024-byte limit of one file.');
      expect(existsSync(join(dir, "copy"))).toBe(false);
    } finally {
      await session.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
