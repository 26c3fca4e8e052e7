// The few Drive API v3 calls the GoogleDrive source makes, with a service account's token (the REST
// kit's JWT bearer grant, rest-kit/oauth.ts): files.list of a folder by its name and of its files
// (paged by pageToken), and a file's content (files.get?alt=media, or files.export as CSV / plain
// text for Google Sheets and Docs). Every request goes through the outbound guard (shared/http.ts;
// downloads through its guarded dispatcher). Rate limits (429, 403 rateLimitExceeded /
// userRateLimitExceeded) and 5xx are retried after Retry-After, else with growing pauses.
import { Readable } from "node:stream";
import type { Row } from "../types";
import { accessToken, forgetAccessToken, type JwtBearer } from "../rest-kit/oauth";
import { assertUrlAllowed } from "@/lib/net/policy";
import { ConnectorError } from "../shared/errors";
import { guardedDispatcher, parseRetryAfter, sendHttp, type Dispatcher } from "@/lib/net/http";
import { fetchStream } from "@/lib/net/stream";
import { abortableSleep } from "../shared/sleep";

export const DEFAULT_BASE_URL = "https://www.googleapis.com";
const SCOPE = "https://www.googleapis.com/auth/drive.readonly";
const AUTH: JwtBearer = { kind: "jwt_bearer", field: "credentials_json", scope: SCOPE };
export const FOLDER_MIME = "application/vnd.google-apps.folder";
const FILE_FIELDS = "id,name,mimeType,size,createdTime,modifiedTime,fileExtension";
/** Google-native files have no bytes of their own: these are exported instead. */
export const EXPORTS: Record<string, { mimeType: string; extension: string }> = {
  "application/vnd.google-apps.spreadsheet": { mimeType: "text/csv", extension: ".csv" },
  "application/vnd.google-apps.document": { mimeType: "text/plain", extension: ".txt" },
};
const MAX_ATTEMPTS = 5;
const PAGE_SIZE = 1000;

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  /** Bytes; absent for Google-native files. */
  size?: number;
  createdTime?: string;
  modifiedTime?: string;
  fileExtension?: string;
}

/** `'` and `\` escaped for a string in a Drive `q`. */
export function driveString(value: string): string {
  return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

interface DriveErrorBody {
  error?: { code?: number; message?: string; errors?: { reason?: string; message?: string }[] };
}

function errorOf(text: string): { reason?: string; message?: string } {
  try {
    const body = JSON.parse(text) as DriveErrorBody;
    return { reason: body.error?.errors?.[0]?.reason, message: body.error?.message?.slice(0, 300) };
  } catch {
    return {};
  }
}

const RATE_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "backendError"]);

function retryable(status: number, reason?: string): boolean {
  return status === 429 || status >= 500 || (status === 403 && !!reason && RATE_REASONS.has(reason));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal, () => new ConnectorError("The operation was canceled.", "canceled"));
}

export class DriveApi {
  private readonly baseUrl: string;
  private dispatcher: Dispatcher | undefined;

  constructor(
    private readonly config: Row,
    private readonly timeoutMs: number,
    /** Scales the pauses between retries (tests). */
    private readonly backoffMs = 1000,
  ) {
    const base = typeof config.base_url === "string" && config.base_url !== "" ? config.base_url : DEFAULT_BASE_URL;
    this.baseUrl = assertUrlAllowed(base).toString().replace(/\/+$/, "");
  }

  private token(): Promise<string> {
    return accessToken(this.baseUrl, this.config, AUTH, this.timeoutMs, "Google Drive");
  }

  private sentence(status: number, reason: string | undefined, message: string | undefined, what: string): string {
    if (status === 404) return `Google Drive has no ${what} (or the service account cannot see it).`;
    if (status === 401) return "Google Drive refused the service account's token.";
    if (status === 403 && reason === "fileNotDownloadable") return `Google Drive cannot download ${what}: it is a Google-native file of a kind without an export here.`;
    if (status === 403 && reason === "exportSizeLimitExceeded") return `Google Drive cannot export ${what}: it is over Drive's 10 MB export limit.`;
    return `Google Drive answered ${status}${reason ? ` ${reason}` : ""} for ${what}${message ? `: ${message}` : ""}.`;
  }

  /** GET a JSON answer, retried on rate limits and 5xx, once more with a new token on 401. */
  private async getJson<T>(path: string, params: Record<string, string>, what: string, signal?: AbortSignal): Promise<T> {
    const url = `${this.baseUrl}${path}?${new URLSearchParams(params).toString()}`;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const exchange = await sendHttp({
        url,
        method: "GET",
        headers: { authorization: `Bearer ${await this.token()}`, accept: "application/json" },
        timeoutMs: this.timeoutMs,
        signal,
        maxBodyBytes: 16 * 1024 * 1024,
        maxRedirects: 0,
      });
      if (signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
      if (exchange.failure) {
        if (exchange.failure === "blocked" || attempt >= MAX_ATTEMPTS) throw new ConnectorError(exchange.error ?? "Google Drive did not answer.", exchange.failure === "blocked" ? "outbound_blocked" : "drive_unavailable");
        await sleep(this.backoffMs * 2 ** (attempt - 1), signal);
        continue;
      }
      if (exchange.status >= 200 && exchange.status < 300) return JSON.parse(exchange.bodyText) as T;
      const { reason, message } = errorOf(exchange.bodyText);
      if (exchange.status === 401 && !renewed) {
        renewed = true;
        forgetAccessToken(this.baseUrl, this.config, AUTH);
        continue;
      }
      if (retryable(exchange.status, reason) && attempt < MAX_ATTEMPTS) {
        const wait = exchange.retryAfterSeconds !== undefined ? exchange.retryAfterSeconds * 1000 : this.backoffMs * 2 ** (attempt - 1);
        await sleep(wait, signal);
        continue;
      }
      throw new ConnectorError(this.sentence(exchange.status, reason, message, what), retryable(exchange.status, reason) ? "drive_unavailable" : "drive_refused");
    }
  }

  /** The id of the folder named `name` (the first one Drive lists), or a sentence saying it is not shared. */
  async folderId(name: string, signal?: AbortSignal): Promise<string> {
    const page = await this.getJson<{ files?: DriveFile[] }>(
      "/drive/v3/files",
      {
        q: `mimeType = '${FOLDER_MIME}' and name = ${driveString(name)} and trashed = false`,
        fields: "files(id,name)",
        pageSize: "10",
        supportsAllDrives: "true",
        includeItemsFromAllDrives: "true",
      },
      `folder "${name}"`,
      signal,
    );
    const id = page.files?.[0]?.id;
    if (!id) {
      const email = (this.config.credentials_json as { client_email?: unknown } | undefined)?.client_email;
      throw new ConnectorError(`No folder named "${name}" is visible to the service account${typeof email === "string" ? ` ${email}` : ""}: share the folder with it.`, "not_found");
    }
    return id;
  }

  /** Every file (not folder, not trashed) directly in the folder, page by page. */
  async *files(folderId: string, signal?: AbortSignal): AsyncGenerator<DriveFile> {
    let pageToken: string | undefined;
    do {
      const page = await this.getJson<{ files?: Record<string, unknown>[]; nextPageToken?: string }>(
        "/drive/v3/files",
        {
          q: `${driveString(folderId)} in parents and mimeType != '${FOLDER_MIME}' and trashed = false`,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: String(PAGE_SIZE),
          supportsAllDrives: "true",
          includeItemsFromAllDrives: "true",
          ...(pageToken ? { pageToken } : {}),
        },
        "the folder's files",
        signal,
      );
      for (const raw of page.files ?? []) {
        if (typeof raw.id !== "string" || typeof raw.name !== "string") continue;
        const size = raw.size === undefined ? undefined : Number(raw.size);
        yield {
          id: raw.id,
          name: raw.name,
          mimeType: typeof raw.mimeType === "string" ? raw.mimeType : "application/octet-stream",
          ...(size !== undefined && Number.isFinite(size) ? { size } : {}),
          ...(typeof raw.createdTime === "string" ? { createdTime: raw.createdTime } : {}),
          ...(typeof raw.modifiedTime === "string" ? { modifiedTime: raw.modifiedTime } : {}),
          ...(typeof raw.fileExtension === "string" ? { fileExtension: raw.fileExtension } : {}),
        };
      }
      pageToken = typeof page.nextPageToken === "string" && page.nextPageToken !== "" ? page.nextPageToken : undefined;
    } while (pageToken);
  }

  /**
   * The file's bytes as a stream: its content (alt=media), or for Google Sheets and Docs their
   * export (CSV, plain text). The caller caps what it keeps.
   */
  async download(file: Pick<DriveFile, "id" | "name" | "mimeType">, signal?: AbortSignal): Promise<Readable> {
    const exported = EXPORTS[file.mimeType];
    const path = `/drive/v3/files/${encodeURIComponent(file.id)}${exported ? "/export" : ""}`;
    const params = new URLSearchParams(exported ? { mimeType: exported.mimeType } : { alt: "media", supportsAllDrives: "true" });
    const url = `${this.baseUrl}${path}?${params.toString()}`;
    this.dispatcher ??= guardedDispatcher();
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.timeoutMs);
      const onAbort = () => controller.abort();
      signal?.addEventListener("abort", onAbort, { once: true });
      let response;
      try {
        response = await fetchStream(url, {
          headers: { authorization: `Bearer ${await this.token()}` },
          dispatcher: this.dispatcher,
          signal: controller.signal,
        });
      } catch (err) {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (signal?.aborted) throw new ConnectorError("The operation was canceled.", "canceled");
        const cause = (err as { cause?: unknown }).cause;
        if (cause instanceof ConnectorError) throw cause;
        if (attempt >= MAX_ATTEMPTS) throw new ConnectorError(`Google Drive did not send "${file.name}".`, "drive_unavailable");
        await sleep(this.backoffMs * 2 ** (attempt - 1), signal);
        continue;
      }
      clearTimeout(timer);
      if (response.ok && response.body) {
        // From here the reader owns the stream; a stalled body is bounded by the caller's signal.
        signal?.removeEventListener("abort", onAbort);
        return Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
      }
      const text = (await response.text().catch(() => "")).slice(0, 64 * 1024);
      signal?.removeEventListener("abort", onAbort);
      const { reason, message } = errorOf(text);
      if (response.status === 401 && !renewed) {
        renewed = true;
        forgetAccessToken(this.baseUrl, this.config, AUTH);
        continue;
      }
      if (retryable(response.status, reason) && attempt < MAX_ATTEMPTS) {
        const after = parseRetryAfter(response.headers.get("retry-after"));
        await sleep(after !== undefined ? after * 1000 : this.backoffMs * 2 ** (attempt - 1), signal);
        continue;
      }
      throw new ConnectorError(this.sentence(response.status, reason, message, `file "${file.name}"`), retryable(response.status, reason) ? "drive_unavailable" : "drive_refused");
    }
  }
}
