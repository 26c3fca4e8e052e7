// The SFTP server as the file layer sees it (files/remote-files.ts): keys are paths on the server
// (relative ones start at the login directory), listed by walking directories. One session serves
// a whole operation; it opens on first use and closes with close().
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { RemoteEntry, RemoteFiles, UploadResult } from "../files/remote-files";
import { SftpSession, type SftpTarget } from "./transport";

/** Directories walked below the listed one (a `**` pattern reaches no deeper). */
const MAX_DEPTH = 4;

export class SftpFiles implements RemoteFiles {
  readonly urlPrefix: string;
  readonly root: string;
  private session: Promise<SftpSession> | undefined;

  constructor(
    private readonly target: SftpTarget,
    /** The configured directory ("" = the login directory). */
    directory: string,
    private readonly signal?: AbortSignal,
  ) {
    this.urlPrefix = `sftp://${target.host}/`;
    this.root = directory === "" ? "" : directory === "/" ? "/" : `${directory}/`;
  }

  open(): Promise<SftpSession> {
    this.session ??= SftpSession.open(this.target, this.signal);
    return this.session;
  }

  // The session carries the operation's signal; the layer's per-call one is the same run's.
  async list(prefix: string, limit: number, _signal?: AbortSignal): Promise<RemoteEntry[]> {
    const session = await this.open();
    const slash = prefix.lastIndexOf("/");
    const start = slash >= 0 ? prefix.slice(0, slash) || "/" : "";
    const out: RemoteEntry[] = [];
    const walk = async (dir: string, depth: number): Promise<void> => {
      const entries = await session.list(dir).catch((err: unknown) => {
        // A prefix naming a directory that does not exist lists nothing.
        if ((err as { code?: string }).code === "not_found") return [];
        throw err;
      });
      for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (out.length >= limit) return;
        const key = dir === "/" ? `/${e.name}` : e.path;
        if (e.isFile && key.startsWith(prefix)) out.push({ key, size: e.size, modified: e.modifiedAt });
        else if (!e.isFile && depth < MAX_DEPTH && !e.name.startsWith(".") && (`${key}/`.startsWith(prefix) || prefix.startsWith(`${key}/`))) await walk(key, depth + 1);
      }
    };
    await walk(start, 0);
    return out;
  }

  async download(entry: RemoteEntry, _signal?: AbortSignal): Promise<Readable> {
    return (await this.open()).openRead(entry.key);
  }

  async upload(localPath: string, key: string): Promise<UploadResult> {
    const session = await this.open();
    await session.upload(createReadStream(localPath), key);
    const written = await session.stat(key);
    return { key, detail: `${written?.size ?? 0} bytes written to ${key}` };
  }

  async close(): Promise<void> {
    const pending = this.session;
    this.session = undefined;
    if (pending) await (await pending.catch(() => undefined))?.close();
  }
}
