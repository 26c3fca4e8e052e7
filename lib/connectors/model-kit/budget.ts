// Cost-aware spacing of model requests, within this process: at most `perMinute` units begin in any
// minute, per key (one vendor endpoint and credential). A request costs 1 unit of the requests budget
// and its estimated tokens of the tokens budget. A slot is reserved before waiting, so concurrent
// callers queue up in order instead of all waking at once.
import { createHash } from "node:crypto";
import { abortableSleep } from "../shared/sleep";
import { ConnectorError } from "../shared/errors";

export type Wait = (ms: number, signal?: AbortSignal) => Promise<void>;

const cancelled = () => new ConnectorError("The read was cancelled.");
export const sleep: Wait = (ms, signal) => abortableSleep(ms, signal, cancelled);

export class MinuteBudget {
  private readonly next = new Map<string, number>();
  constructor(
    private readonly now: () => number = Date.now,
    private readonly wait: Wait = sleep,
  ) {}

  /** Milliseconds the caller waited (0 without a limit). A cost above the whole budget counts as the budget. */
  async acquire(key: string, perMinute: number, cost = 1, signal?: AbortSignal): Promise<number> {
    if (perMinute <= 0 || cost <= 0) return 0;
    const now = this.now();
    const slot = Math.max(now, this.next.get(key) ?? 0);
    this.next.set(key, slot + (60_000 * Math.min(cost, perMinute)) / perMinute);
    // Bounded: one process serves every workspace.
    if (this.next.size > 1000) this.next.delete(this.next.keys().next().value as string);
    await this.wait(slot - now, signal);
    return slot - now;
  }
}

const requests = new MinuteBudget();
const tokens = new MinuteBudget();

/** A key for a vendor endpoint and its credential, hashed so no credential sits in a map key. */
export function budgetKey(...parts: string[]): string {
  return createHash("sha256").update(parts.join("\u0000")).digest("hex");
}

/** Waits for a slot of both budgets. */
export async function spend(key: string, limits: { requestsPerMinute: number; tokensPerMinute: number }, estimatedTokens: number, signal?: AbortSignal): Promise<void> {
  await requests.acquire(key, limits.requestsPerMinute, 1, signal);
  await tokens.acquire(key, limits.tokensPerMinute, estimatedTokens, signal);
}

/** How long to wait before retry number `attempt + 1`: Retry-After when the server sent one, else 1 s, 2 s, 4 s… up to 30 s. */
export function retryDelayMs(retryAfterSeconds: number | undefined, attempt: number): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  return Math.min(30_000, 1000 * 2 ** attempt);
}
