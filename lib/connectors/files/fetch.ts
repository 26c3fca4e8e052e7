// Private temporary copies of remote files: one directory per operation (mode 0700, under
// FILES_TEMP_DIR or the system's), filled within FILES_MAX_DOWNLOAD_MB, removed when the operation
// ends, whether it succeeds, fails or is canceled.
import { createWriteStream } from "node:fs";
import { chmod, mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { env } from "@/lib/settings/env";
import { ConnectorError } from "../shared/errors";
import type { PlannedFile } from "./plan";
import type { RemoteFiles } from "./remote-files";

export const TEMP_PREFIX = "datasync-files-";

export interface LocalCopies {
  /** The copies' directory (real path): files sit at `<dir>/<PlannedFile.local>`. */
  dir: string;
  /** Removes the directory and everything in it. */
  remove(): Promise<void>;
}

const maxBytes = () => env.FILES_MAX_DOWNLOAD_MB * 1024 * 1024;

/** A new private directory for one operation's copies. */
export async function makeCopiesDir(): Promise<LocalCopies> {
  const parent = env.FILES_TEMP_DIR ?? tmpdir();
  // The real path: DuckDB compares the paths a query names with it (allowed_directories).
  const top = await realpath(await mkdtemp(path.join(parent, TEMP_PREFIX)));
  await chmod(top, 0o700);
  const dir = path.join(top, "files");
  await mkdir(dir);
  return { dir, remove: () => rm(top, { recursive: true, force: true }) };
}

function tooLarge(): ConnectorError {
  return new ConnectorError(
    `The files this model names are larger than the ${env.FILES_MAX_DOWNLOAD_MB} MB one operation may copy from the store (FILES_MAX_DOWNLOAD_MB): name fewer or smaller files.`,
  );
}

/** Copies `files` into a new directory; on any failure the directory is removed before rethrowing. */
export async function fetchCopies(
  remote: RemoteFiles,
  files: readonly PlannedFile[],
  signal?: AbortSignal,
): Promise<LocalCopies> {
  const limit = maxBytes();
  if (files.reduce((sum, f) => sum + f.entry.size, 0) > limit) throw tooLarge();
  const copies = await makeCopiesDir();
  try {
    let total = 0;
    for (const file of files) {
      signal?.throwIfAborted();
      const target = path.join(copies.dir, file.local);
      // planQuery/planAll allow only safe relative paths; this is the last line.
      if (!target.startsWith(`${copies.dir}${path.sep}`)) throw new ConnectorError(`Refused to copy ${file.entry.key}.`);
      await mkdir(path.dirname(target), { recursive: true });
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          total += chunk.length;
          done(total > limit ? tooLarge() : null, chunk);
        },
      });
      const body = await remote.download(file.entry, signal);
      await pipeline(body, counter, createWriteStream(target, { flags: "wx", mode: 0o600 }), { signal });
    }
    return copies;
  } catch (err) {
    await copies.remove();
    if (signal?.aborted && !(err instanceof ConnectorError)) throw new ConnectorError("The read was stopped.");
    throw err;
  }
}
