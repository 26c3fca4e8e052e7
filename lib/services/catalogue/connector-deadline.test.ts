// The API's deadline on connector calls: the connector's signal fires, and the API stops waiting
// even when a connector ignores the signal.
import { describe, expect, it } from "vitest";
import { withApiDeadline } from "./connector-deadline";

describe("withApiDeadline", () => {
  it("aborts the call's signal and fails with a sentence naming the setting", async () => {
    let seen: AbortSignal | undefined;
    const started = Date.now();
    await expect(
      withApiDeadline("Discovery", (signal) => {
        seen = signal;
        return new Promise<never>(() => undefined); // a connector that ignores its signal
      }, 200),
    ).rejects.toThrow(/Discovery did not finish within 0.2 s \(CONNECTOR_API_CALL_TIMEOUT_SECONDS\)/);
    expect(seen?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("answers what the call answers in time", async () => {
    await expect(withApiDeadline("Check", async () => 42, 1000)).resolves.toBe(42);
  });
});
