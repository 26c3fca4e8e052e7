// What the SaaS API emulators share: a real HTTP server on 127.0.0.1 (tests/support/connectors.ts),
// fixed-window rate limits as the vendors publish them, and a helper that writes through the
// engine's Loader (retries, Retry-After, bisection) as a run would. Used by tests only.
import type { ServerResponse } from "node:http";
import type { DestinationConnector, Row, Stream, WriteOutcome, WriteRecord } from "@/lib/connectors/types";
import { Loader, type LongWaitCause } from "@/lib/engine/load";
import { json, startHttpServer, type ReceivedRequest } from "@/tests/support/connectors";
import { FixedWindow, parseBody } from "./rate-window";

export type { ReceivedRequest };
export { json };
// Kept apart (rate-window.ts) so emulators that Playwright specs start need not import the engine.
export { FixedWindow, parseBody };

export type EmulatorServer = Awaited<ReturnType<typeof startHttpServer>>;

/** Starts an emulator: `handle` answers every request (bodies already read). */
export async function startEmulator(handle: (req: ReceivedRequest, res: ServerResponse) => void): Promise<EmulatorServer> {
  return startHttpServer(handle);
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
