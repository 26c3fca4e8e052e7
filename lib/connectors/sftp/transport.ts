// One SFTP session (ssh2-sftp-client over ssh2) for a connector operation. The TCP connection is
// opened by the outbound guard (connectGuarded) and handed to ssh2 as its `sock`, so ssh2 never
// resolves or connects on its own. The server's host key is checked against the configured
// fingerprint when there is one; without one any key is accepted and check() reports the key seen,
// so the person can pin it (no trust-on-first-use store: connectors keep no state). Every remote
// call is bounded by the operation timeout, and an abort ends the session at once.
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Socket } from "node:net";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import SftpClient from "ssh2-sftp-client";
import { connectGuarded } from "@/lib/net/policy";
import { ConnectorError, errorMessage } from "../shared/errors";
import { normalizeFingerprint } from "./fingerprint";

export { normalizeFingerprint };

export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  passphrase?: string;
  /** `SHA256:<base64>` as `ssh-keygen -l` prints it; absent: any host key is accepted. */
  hostKeyFingerprint?: string;
  /** Connect, SSH handshake and authentication. */
  connectTimeoutMs: number;
  /** Each remote call (list, stat, rename) and each wait for a chunk of a transfer. */
  operationTimeoutMs: number;
}

export interface RemoteEntry {
  /** The entry's name within its directory. */
  name: string;
  /** Full remote path (directory joined with the name by `/`). */
  path: string;
  size: number;
  modifiedAt: Date;
  isFile: boolean;
}

/** ConnectorError codes worth a retry: the server did not answer or the connection broke. */
export const SFTP_UNAVAILABLE = "sftp_unavailable";

/** The fingerprint OpenSSH prints for a host key blob: `SHA256:` and unpadded base64 of its SHA-256. */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`;
}


/** Joins remote path parts with `/` (SFTP paths are POSIX, whatever this server runs on). */
export function remoteJoin(dir: string, name: string): string {
  if (dir === "" || dir === ".") return name;
  return `${dir.replace(/\/+$/, "")}/${name}`;
}

interface Described {
  message: string;
  code?: string;
}

function describe(err: unknown, target: SftpTarget, seenKey: string | undefined): Described {
  if (err instanceof ConnectorError) return { message: err.message, code: err.code };
  const message = errorMessage(err);
  const code = (err as { code?: unknown }).code;
  const level = (err as { level?: unknown }).level;
  const where = `${target.host}:${target.port}`;
  if (/host denied|verification failed/i.test(message) && seenKey) {
    return {
      message: `The SFTP server at ${where} presented host key ${seenKey}, not the configured ${target.hostKeyFingerprint}: the key changed or another server answered. Check with the server's administrator before updating host_key_fingerprint.`,
      code: "host_key_mismatch",
    };
  }
  if (level === "client-authentication" || /authentication methods failed/i.test(message)) {
    return { message: `The SFTP server at ${where} refused user "${target.username}": wrong password or key.`, code: "auth_failed" };
  }
  if (code === "ECONNREFUSED" || /ECONNREFUSED/.test(message)) return { message: `Nothing accepts connections at ${where} (connection refused).`, code: SFTP_UNAVAILABLE };
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || /ENOTFOUND|EAI_AGAIN/.test(message)) return { message: `The host name "${target.host}" could not be resolved.`, code: SFTP_UNAVAILABLE };
  if (level === "client-timeout" || /timed out while waiting for handshake/i.test(message)) {
    return { message: `The SFTP server at ${where} did not complete the SSH handshake within ${Math.round(target.connectTimeoutMs / 1000)} s.`, code: SFTP_UNAVAILABLE };
  }
  if (code === 2 || /no such file/i.test(message)) return { message: message.replace(/^[\w.]+: /, ""), code: "not_found" };
  if (code === 3 || /permission denied/i.test(message)) return { message: `The SFTP server denied access: ${message.replace(/^[\w.]+: /, "")}.`, code: "permission_denied" };
  if (code === "ECONNRESET" || /ECONNRESET|not connected|connection lost|socket hang up/i.test(message)) return { message: `The connection to the SFTP server at ${where} was lost.`, code: SFTP_UNAVAILABLE };
  return { message: `SFTP: ${message.replace(/^[\w.]+: /, "")}`, code: typeof code === "string" ? code : undefined };
}

/** One open SFTP session. Always `close()` it (finally). */
export class SftpSession {
  private closed = false;
  private constructor(
    private readonly client: SftpClient,
    private readonly socket: Socket,
    private readonly target: SftpTarget,
    /** The host key's fingerprint as the server presented it. */
    readonly serverFingerprint: string,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  private readonly onAbort = () => {
    this.socket.destroy();
    void this.close();
  };

  static async open(target: SftpTarget, signal?: AbortSignal): Promise<SftpSession> {
    if (signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
    const socket = connectGuarded(new Socket(), { host: target.host, port: target.port });
    const client = new SftpClient("datasync");
    let seen: string | undefined;
    const expected = target.hostKeyFingerprint ? normalizeFingerprint(target.hostKeyFingerprint) : undefined;
    if (target.hostKeyFingerprint && !expected) {
      socket.destroy();
      throw new ConnectorError("host_key_fingerprint must look like SHA256:… as `ssh-keygen -l -f <key>` prints it.");
    }
    const abort = () => socket.destroy(new ConnectorError("The operation was canceled.", "canceled"));
    signal?.addEventListener("abort", abort, { once: true });
    // ssh2 takes a socket that is not `connecting` as connected: hand it over once it is.
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => socket.destroy(Object.assign(new Error("connect timed out"), { level: "client-timeout" })), target.connectTimeoutMs);
        socket.once("connect", () => {
          clearTimeout(timer);
          resolve();
        });
        socket.once("error", (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
    } catch (err) {
      signal?.removeEventListener("abort", abort);
      socket.destroy();
      const described = describe(err, target, undefined);
      throw new ConnectorError(described.message, described.code);
    }
    try {
      await client.connect({
        sock: socket,
        host: target.host,
        port: target.port,
        username: target.username,
        ...(target.password ? { password: target.password } : {}),
        ...(target.privateKey ? { privateKey: target.privateKey, ...(target.passphrase ? { passphrase: target.passphrase } : {}) } : {}),
        readyTimeout: target.connectTimeoutMs,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer) => {
          seen = hostKeyFingerprint(key);
          return !expected || seen === expected;
        },
        tryKeyboard: false,
      });
    } catch (err) {
      socket.destroy();
      await client.end().catch(() => undefined);
      const described = describe(err, target, seen);
      throw new ConnectorError(described.message, described.code);
    } finally {
      signal?.removeEventListener("abort", abort);
    }
    return new SftpSession(client, socket, target, seen ?? "", signal);
  }

  /** Runs one remote call, bounded by the operation timeout; errors become sentences. */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    if (this.signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.socket.destroy();
        reject(new ConnectorError(`The SFTP server did not answer ${what} within ${Math.round(this.target.operationTimeoutMs / 1000)} s.`, SFTP_UNAVAILABLE));
      }, this.target.operationTimeoutMs);
    });
    try {
      return await Promise.race([fn(), timeout]);
    } catch (err) {
      if (this.signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
      const described = describe(err, this.target, undefined);
      throw new ConnectorError(described.message, described.code);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The entries of a directory (files and directories; `.` and `..` left out). */
  async list(dir: string): Promise<RemoteEntry[]> {
    const entries = await this.call(`listing "${dir}"`, () => this.client.list(dir === "" ? "." : dir));
    return entries
      .filter((e) => e.name !== "." && e.name !== "..")
      .map((e) => ({ name: e.name, path: remoteJoin(dir, e.name), size: e.size, modifiedAt: new Date(e.modifyTime), isFile: e.type === "-" }));
  }

  /** One path's entry, or undefined when it does not exist. */
  async stat(path: string): Promise<RemoteEntry | undefined> {
    try {
      const s = await this.call(`about "${path}"`, () => this.client.stat(path));
      const name = path.split("/").pop() ?? path;
      return { name, path, size: s.size, modifiedAt: new Date(s.modifyTime), isFile: s.isFile };
    } catch (err) {
      if (err instanceof ConnectorError && err.code === "not_found") return undefined;
      throw err;
    }
  }

  /**
   * Streams a remote file into `localPath` (created new, owner-only), refusing one larger than
   * `maxBytes`; a stalled transfer fails after the operation timeout.
   */
  async download(remotePath: string, localPath: string, maxBytes: number): Promise<number> {
    const entry = await this.stat(remotePath);
    if (!entry) throw new ConnectorError(`No file "${remotePath}" on the SFTP server.`, "not_found");
    if (!entry.isFile) throw new ConnectorError(`"${remotePath}" on the SFTP server is not a file.`);
    if (entry.size > maxBytes) throw new ConnectorError(`"${remotePath}" is ${entry.size} bytes, over the ${maxBytes}-byte limit of one file.`, "too_large");
    let received = 0;
    const cap = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        received += chunk.length;
        if (received > maxBytes) done(new ConnectorError(`"${remotePath}" grew over the ${maxBytes}-byte limit of one file while it was read.`, "too_large"));
        else done(null, chunk);
      },
    });
    await this.stream(`the contents of "${remotePath}"`, [this.client.createReadStream(remotePath), cap, createWriteStream(localPath, { flags: "wx", mode: 0o600 })]);
    return received;
  }

  /** A remote file's bytes as a stream, failed when the server stops sending for the operation timeout. */
  openRead(remotePath: string): Readable {
    const stream = this.client.createReadStream(remotePath);
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.socket.destroy();
        stream.destroy(new ConnectorError(`The SFTP server stopped sending "${remotePath}" for ${Math.round(this.target.operationTimeoutMs / 1000)} s.`, SFTP_UNAVAILABLE));
      }, this.target.operationTimeoutMs);
    };
    arm();
    stream.on("data", arm);
    stream.once("close", () => clearTimeout(timer));
    stream.once("error", () => clearTimeout(timer));
    const target = this.target;
    // ssh2's errors (no such file, permission) become sentences before the layer sees them.
    const out = new Transform({ transform: (chunk, _e, done) => done(null, chunk) });
    stream.once("error", (err: Error) => {
      const d = describe(err, target, undefined);
      out.destroy(err instanceof ConnectorError ? err : new ConnectorError(d.message, d.code));
    });
    return stream.pipe(out);
  }

  /**
   * Uploads `source` to `remotePath` without ever showing a partial file there: it is written to a
   * hidden temporary name beside it, then renamed over the target in one step (OpenSSH's
   * posix-rename, which replaces an existing file). A failure removes the temporary file.
   */
  async upload(source: Readable, remotePath: string): Promise<void> {
    const slash = remotePath.lastIndexOf("/");
    const dir = slash >= 0 ? remotePath.slice(0, slash) : "";
    const temp = remoteJoin(dir, `.${remotePath.slice(slash + 1)}.${randomBytes(6).toString("hex")}.part`);
    try {
      await this.stream(`an upload to "${remotePath}"`, [source, this.client.createWriteStream(temp, { flags: "w", mode: 0o644 })]);
      await this.call(`renaming the upload to "${remotePath}"`, () => this.client.posixRename(temp, remotePath));
    } catch (err) {
      if (!this.closed && !this.socket.destroyed) await this.client.delete(temp, true).catch(() => undefined);
      throw err;
    }
  }

  /** Writes and removes a small file in `dir`: proves the user may create files there. */
  async probeWritable(dir: string): Promise<void> {
    const probe = remoteJoin(dir, `.datasync-check-${randomBytes(6).toString("hex")}`);
    await this.call(`a test write in "${dir || "."}"`, () => this.client.put(Buffer.from("check\n"), probe));
    await this.call(`removing the test file`, () => this.client.delete(probe));
  }

  async remove(path: string): Promise<void> {
    await this.call(`removing "${path}"`, () => this.client.delete(path, true));
  }

  /** A pipeline whose every chunk must come within the operation timeout. */
  private async stream(what: string, stages: (NodeJS.ReadableStream | NodeJS.WritableStream | Transform)[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const controller = new AbortController();
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), this.target.operationTimeoutMs);
    };
    const watchdog = new Transform({
      transform(chunk, _enc, done) {
        arm();
        done(null, chunk);
      },
    });
    const onAbort = () => controller.abort();
    this.signal?.addEventListener("abort", onAbort, { once: true });
    arm();
    try {
      await pipeline([stages[0], watchdog, ...stages.slice(1)] as unknown as [NodeJS.ReadableStream, NodeJS.WritableStream], { signal: controller.signal });
    } catch (err) {
      if (this.signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
      if (controller.signal.aborted) {
        this.socket.destroy();
        throw new ConnectorError(`The SFTP server stopped sending ${what} for ${Math.round(this.target.operationTimeoutMs / 1000)} s.`, SFTP_UNAVAILABLE);
      }
      const described = describe(err, this.target, undefined);
      throw new ConnectorError(described.message, described.code);
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener("abort", onAbort);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    await Promise.race([this.client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
    this.socket.destroy();
  }
}
