// RemoteFiles over a local directory: the layer's reference implementation, used by its tests (a
// store with no network), and a model for the S3, SFTP and Drive implementations.
import { createReadStream } from "node:fs";
import { copyFile, mkdir, readdir, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import type { RemoteEntry, RemoteFiles, UploadResult } from "./remote-files";

export class LocalFiles implements RemoteFiles {
  readonly urlPrefix: string;

  constructor(
    private readonly base: string,
    readonly root = "",
    urlPrefix = "local://store/",
  ) {
    this.urlPrefix = urlPrefix;
  }

  async list(prefix: string, limit: number): Promise<RemoteEntry[]> {
    const out: RemoteEntry[] = [];
    const walk = async (rel: string): Promise<void> => {
      const entries = await readdir(path.join(this.base, rel), { withFileTypes: true }).catch(() => []);
      for (const e of entries) {
        if (out.length >= limit) return;
        const key = rel === "" ? e.name : `${rel}/${e.name}`;
        if (e.isDirectory()) await walk(key);
        else if (e.isFile() && key.startsWith(prefix)) {
          const s = await stat(path.join(this.base, key));
          out.push({ key, size: s.size, modified: s.mtime });
        }
      }
    };
    await walk("");
    return out;
  }

  async download(entry: RemoteEntry): Promise<Readable> {
    return createReadStream(path.join(this.base, entry.key));
  }

  async upload(localPath: string, key: string): Promise<UploadResult> {
    const target = path.join(this.base, key);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(localPath, target);
    return { key, detail: `copied ${(await stat(target)).size} bytes` };
  }
}
