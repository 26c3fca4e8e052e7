// What emulators need without the engine: fixed-window rate limits as the vendors publish them and a
// request body's JSON. Apart from common.ts (whose loadThrough imports the engine's Loader, which is
// server-only), so emulators started by Playwright specs can use it too. Tests only.
import type { ReceivedRequest } from "../support/connectors";

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
