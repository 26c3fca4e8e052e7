// The guard between the engine and the connectors, over a source and a destination that never
// answer: the deadline's sentence, the abandon switch, bounded closes and reads left mid-batch.
import { describe, expect, it } from "vitest";
import type { DestinationConnector, Row, SourceConnector, Stream } from "@/lib/connectors/types";
import { ConnectorCalls, ConnectorDeadlineError } from "./connector-calls";

const never = <T>() => new Promise<T>(() => undefined);
const stream = { name: "s" } as Stream;
const definition = (title: string, connectorType: "source" | "destination") =>
  ({ name: title, title, connectorType }) as DestinationConnector["definition"];

function silentDestination(log: string[]): DestinationConnector {
  return {
    definition: definition("Silent", "destination"),
    check: never,
    discover: never,
    write: (_config, _records, options) => {
      options.signal?.addEventListener("abort", () => log.push("write saw the abort"));
      return never();
    },
    close: () => {
      log.push("close");
      return never();
    },
  };
}

function silentSource(): SourceConnector {
  return {
    definition: definition("Silent", "source"),
    check: never,
    discover: never,
    read: async function* () {
      await never();
    },
  };
}

describe("ConnectorCalls", () => {
  it("fails a call past its deadline with a sentence naming the connector and the call, abandons the others and closes", async () => {
    const log: string[] = [];
    const calls = new ConnectorCalls(50);
    const overruns: Error[] = [];
    calls.onOverrun((err) => overruns.push(err));
    const destination = calls.destination(silentDestination(log), {} as Row);
    const source = calls.source(silentSource());

    const reading = source.read({}, { query: "q", batchSize: 1 })[Symbol.asyncIterator]().next();
    const writing = destination.write({}, [], { stream, batch: true });
    const first = await Promise.race([reading.catch((e: unknown) => e), writing.catch((e: unknown) => e)]);
    expect(first).toBeInstanceOf(ConnectorDeadlineError);
    expect((first as Error).message).toMatch(/^The Silent (source did not answer a read|destination did not answer a write) within 0\.1 s \(ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS\); the run stopped\./);
    expect(overruns).toHaveLength(1);
    // The other call is abandoned with the same reason, the destination's signal aborts and its close is asked for.
    await expect(writing).rejects.toBeInstanceOf(ConnectorDeadlineError);
    await expect(reading).rejects.toBeInstanceOf(ConnectorDeadlineError);
    expect(log).toContain("write saw the abort");
    expect(log).toContain("close");
    // Later calls are refused at once.
    await expect(destination.write({}, [], { stream, batch: true })).rejects.toBe(first);
  });

  it("abandons calls in flight when told to, and bounds close and a read's return", async () => {
    const log: string[] = [];
    const calls = new ConnectorCalls(60_000);
    const destination = calls.destination(silentDestination(log), {} as Row);
    const iterator = calls.source(silentSource()).read({}, { query: "q", batchSize: 1 })[Symbol.asyncIterator]();
    const reading = iterator.next();
    const writing = destination.write({}, [], { stream, batch: true });
    const reason = new Error("canceled");
    calls.abandon(reason);
    await expect(writing).rejects.toBe(reason);
    await expect(reading).rejects.toBe(reason);
    // A generator stuck in next() would queue return() for ever; the guard does not wait past its cleanup bound.
    await expect(iterator.return?.()).resolves.toMatchObject({ done: true });
    await expect(destination.close?.({})).resolves.toBeUndefined();
  }, 20_000);

  it("passes a connector's own answer and error through, a synchronous throw included", async () => {
    const calls = new ConnectorCalls(50);
    const failing: DestinationConnector = {
      ...silentDestination([]),
      write: () => {
        throw new Error("bad configuration");
      },
    };
    await expect(calls.destination(failing, {}).write({}, [], { stream, batch: true })).rejects.toThrow("bad configuration");
    const answering: DestinationConnector = { ...silentDestination([]), write: async () => [{ key: "1", ok: true }] };
    await expect(calls.destination(answering, {}).write({}, [], { stream, batch: true })).resolves.toEqual([{ key: "1", ok: true }]);
    // Nothing overran: the calls are still usable after the deadline would have passed.
    await new Promise((r) => setTimeout(r, 100));
    expect(calls.signal.aborted).toBe(false);
  });
});
