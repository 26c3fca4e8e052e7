// What the SaaS API emulators share: a real HTTP server on 127.0.0.1 (tests/support/connectors.ts),
// fixed-window rate limits as the vendors publish them, and a helper that writes through the
// engine's Loader (retries, Retry-After, bisection) as a run would. Used by tests only.
import type { ServerResponse } from "node:http";
import type { DestinationConnector, Row, Stream, WriteOutcome, WriteRecord } from "@/lib/connectors/types";
import { Loader, type LongWaitCause } from "@/lib/engine/load";
import { json, startHttpServer, type ReceivedRequest } from "@/tests/support/connectors";

export type { ReceivedRequest };
export { json };

export type EmulatorServer = Awaited<ReturnType<typeof startHttpServer>>;

/** Starts an emulator: `handle` answers every request (bodies already read). */
export async function startEmulator(handle: (req: ReceivedRequest, res: ServerResponse) => void): Promise<EmulatorServer> {
  return startHttpServer(handle);
}

/** A fixed window of `max` requests per `windowMs`, per key (a token, a base). */
export class FixedWindow {
  private readonly windows = new Map<string, { start: number; count: number }>();
  constructor(
    public max: number,
    public windowMs: number,
  ) {}

  /** Counts a request; `allowed` false once the window is full. */
  hit(key: string, now = Date.now()): { allowed: boolean; remaining: number; resetMs: number } {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    return { allowed: w.count <= this.max, remaining: Math.max(0, this.max - w.count), resetMs: w.start + this.windowMs - now };
  }

  reset(): void {
    this.windows.clear();
  }
}

export function parseBody(req: ReceivedRequest): unknown {
  try {
    return JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

export function bearerToken(req: ReceivedRequest): string | undefined {
  const header = req.headers.authorization;
  return typeof header === "string" && header.startsWith("Bearer ") ? header.slice(7) : undefined;
}

export interface LoadResult {
  outcomes: WriteOutcome[];
  /** Waits the Loader handed over instead of sleeping (longer than longWaitMs). */
  longWaits: { waitMs: number; cause: LongWaitCause }[];
}

/**
 * Writes `records` as a run's load stage does: chunks of the stream's batch_size, retries with
 * backoff that honours retryAfterSeconds, bisection of a chunk that failed whole.
 */
export async function loadThrough(
  destination: DestinationConnector,
  config: Row,
  stream: Stream,
  records: WriteRecord[],
  options: { longWaitMs?: number; maxAttempts?: number } = {},
): Promise<LoadResult> {
  const longWaits: LoadResult["longWaits"] = [];
  const loader = new Loader({
    destination,
    config,
    stream,
    batch: stream.batch_support,
    batchSize: stream.batch_size,
    concurrency: 1,
    baseDelayMs: 1,
    maxAttempts: options.maxAttempts ?? 3,
    longWaitMs: options.longWaitMs,
    onLongWait: (waitMs, cause) => {
      longWaits.push({ waitMs, cause });
      return false;
    },
  });
  const byKey = await loader.load(records);
  return { outcomes: records.map((r) => byKey.get(r.key)).filter((o): o is WriteOutcome => o !== undefined), longWaits };
}

export function records(count: number, payload: (i: number) => Row, action: WriteRecord["action"] = "upsert"): WriteRecord[] {
  return Array.from({ length: count }, (_, i) => ({ key: String(i + 1), action, payload: payload(i + 1) }));
}
