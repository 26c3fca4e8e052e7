// A Drive folder as the file layer sees it (files/remote-files.ts): keys are the folder's file
// names (flat: Drive folders hold files by name, not by path); a Google Sheet is offered as
// `<name>.csv`, its CSV export. Names holding `/` and later files of a name already seen are left
// out (Drive allows both). Read-only: the source never uploads.
import type { Readable } from "node:stream";
import type { RemoteEntry, RemoteFiles, UploadResult } from "../files/remote-files";
import { ConnectorError } from "../shared/errors";
import { EXPORTS, type DriveApi, type DriveFile } from "./drive-api";

/** The key a Drive file goes by, or undefined when it cannot be named as a file. */
export function driveKey(file: Pick<DriveFile, "name" | "mimeType">): string | undefined {
  if (file.name.includes("/") || file.name === "" || file.name === "." || file.name === "..") return undefined;
  const exported = EXPORTS[file.mimeType];
  if (file.mimeType.startsWith("application/vnd.google-apps.") && !exported) return undefined;
  return exported && !file.name.toLowerCase().endsWith(exported.extension) ? `${file.name}${exported.extension}` : file.name;
}

export class DriveFolderFiles implements RemoteFiles {
  readonly urlPrefix: string;
  readonly root = "";
  private listing: Promise<Map<string, DriveFile>> | undefined;

  constructor(
    private readonly api: DriveApi,
    private readonly folderName: string,
    private readonly signal?: AbortSignal,
  ) {
    this.urlPrefix = `gdrive://${folderName}/`;
  }

  /** The folder's files by key, listed once per operation. */
  files(): Promise<Map<string, DriveFile>> {
    this.listing ??= (async () => {
      const id = await this.api.folderId(this.folderName, this.signal);
      const byKey = new Map<string, DriveFile>();
      for await (const file of this.api.files(id, this.signal)) {
        const key = driveKey(file);
        if (key && !byKey.has(key)) byKey.set(key, file);
      }
      return byKey;
    })();
    return this.listing;
  }

  async list(prefix: string, limit: number): Promise<RemoteEntry[]> {
    const out: RemoteEntry[] = [];
    for (const [key, file] of await this.files()) {
      if (out.length >= limit) break;
      if (!key.startsWith(prefix)) continue;
      out.push({ key, size: file.size ?? 0, ...(file.modifiedTime ? { modified: new Date(file.modifiedTime) } : {}) });
    }
    return out;
  }

  async download(entry: RemoteEntry, signal?: AbortSignal): Promise<Readable> {
    const file = (await this.files()).get(entry.key);
    if (!file) throw new ConnectorError(`No file "${entry.key}" in the Drive folder "${this.folderName}".`, "not_found");
    return this.api.download(file, signal ?? this.signal);
  }

  upload(): Promise<UploadResult> {
    return Promise.reject(new ConnectorError("The Google Drive source does not write."));
  }
}
