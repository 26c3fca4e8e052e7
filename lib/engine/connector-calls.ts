// The one boundary between the engine and the connectors: every call a run makes into a source or a
// destination (a read of the next batch, which connects and queries; a write, which connects, sends
// and waits for acknowledgements; a key lookup, a COPY, an inference, a close) is raced against a
// deadline (ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS) and against the run being abandoned (a cancel,
// disable or shutdown once ENGINE_STOP_GRACE_SECONDS passed, a lost lock at once). A call that never answers therefore cannot hold a
// worker slot: the run fails with a sentence naming the connector and the call, its connections are
// closed best-effort with a bounded wait, and the worker takes the next run. loadRunContext wraps the
// registry's connectors here, so every connector, present or future, gets this without doing anything.
import "server-only";
import type {
  DestinationConnector,
  ReadOptions,
  Row,
  SourceConnector,
  TextRowsDestination,
  TextRowsSource,
} from "@/lib/connectors/types";
import { engineSettings } from "./settings";

/** How long an abandoned connection may take to close before the run goes on without waiting. */
export const CLEANUP_WAIT_MS = 5000;

/** A connector call that did not answer within the deadline: the run fails with this sentence. */
export class ConnectorDeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConnectorDeadlineError";
  }
}

/** Which connector and which call, for the sentence: "The MQTT destination" + "a write". */
interface CallLabel {
  connector: string;
  call: string;
  /** An overrun fails the run (false for work beside it, such as the row count). */
  fatal: boolean;
}

function seconds(ms: number): string {
  const s = Math.round(ms / 100) / 10;
  return `${s} s`;
}

/** Settles with `promise` or after `ms`, whichever comes first; never rejects. */
export async function settleWithin(promise: Promise<unknown> | undefined, ms: number): Promise<void> {
  if (!promise) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The calls of one run (or plan): their deadline, and the switch that abandons every one in flight. */
export class ConnectorCalls {
  private readonly controller = new AbortController();
  private readonly overrunListeners: ((err: ConnectorDeadlineError) => void)[] = [];
  private readonly cleanups: (() => Promise<unknown> | undefined)[] = [];
  private readonly combined = new WeakMap<AbortSignal, AbortSignal>();

  constructor(readonly deadlineMs: number = engineSettings.connectorCallTimeoutMs) {
    this.controller.signal.addEventListener(
      "abort",
      () => {
        // Best effort: close what the abandoned calls hold (a pool, a broker connection), bounded.
        for (const cleanup of this.cleanups) void settleWithin(cleanup(), CLEANUP_WAIT_MS);
      },
      { once: true },
    );
  }

  /** Aborted once the calls are abandoned; its reason is what they rejected with. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Every call in flight rejects with `reason` now, and later calls at once (close excepted). */
  abandon(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** `listener` hears of a fatal overrun (the run fails with it); the calls are abandoned right after. */
  onOverrun(listener: (err: ConnectorDeadlineError) => void): void {
    this.overrunListeners.push(listener);
  }

  /**
   * `signal` (the caller's own, if any) or this abandon switch: connectors that listen stop their
   * work. One combined signal per caller's signal (a run passes the same one to every call): an
   * AbortSignal.any per call would pile dependents onto the run's long-lived signals.
   */
  private withAbandon(signal: AbortSignal | undefined): AbortSignal {
    if (!signal) return this.signal;
    let combined = this.combined.get(signal);
    if (!combined) this.combined.set(signal, (combined = AbortSignal.any([signal, this.signal])));
    return combined;
  }

  /** Runs one call: its result, or a rejection at the deadline or when the calls are abandoned. */
  async call<T>(label: CallLabel, start: () => Promise<T>): Promise<T> {
    const { signal } = this;
    if (signal.aborted) throw signal.reason;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: () => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.overrun(label)), this.deadlineMs);
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    // A connector that throws before returning its promise rejects here too (the timer is set).
    const work = new Promise<T>((resolve) => resolve(start()));
    // Abandoned: whatever it ends with later is nobody's (and no unhandled rejection).
    work.catch(() => undefined);
    try {
      return await Promise.race([work, stopped]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
  }

  private overrun(label: CallLabel): ConnectorDeadlineError {
    const err = new ConnectorDeadlineError(
      `The ${label.connector} did not answer ${label.call} within ${seconds(this.deadlineMs)} (ENGINE_CONNECTOR_CALL_TIMEOUT_SECONDS); ` +
        "the run stopped. Records it confirmed stay recorded; the others are sent again on the next run.",
    );
    if (label.fatal) {
      for (const listener of this.overrunListeners) listener(err);
      this.abandon(err);
    }
    return err;
  }

  /** Pages of `open`'s iterable, each `next()` one call; `return()` waits for the source a bounded time. */
  private iterable<T>(label: CallLabel, open: () => AsyncIterable<T>): AsyncIterable<T> {
    return {
      [Symbol.asyncIterator]: () => {
        const inner = open()[Symbol.asyncIterator]();
        let unsettled = false;
        return {
          next: () =>
            this.call(label, () => {
              unsettled = true;
              return inner.next().finally(() => (unsettled = false));
            }),
          return: async (value?: unknown) => {
            // A generator whose next() never settled queues return() behind it: ask, but do not wait.
            const closing = inner.return?.(value as T);
            if (unsettled) void closing?.catch(() => undefined);
            else await settleWithin(closing, CLEANUP_WAIT_MS);
            return { done: true as const, value: value as T };
          },
        };
      },
    };
  }

  /** The source with every engine call guarded (check, discover and previews are the API's, not a run's). */
  source(connector: SourceConnector): SourceConnector {
    const name = `${connector.definition.title} source`;
    const label = (call: string, fatal = true): CallLabel => ({ connector: name, call, fatal });
    const options = <O extends ReadOptions>(o: O): O => ({ ...o, signal: this.withAbandon(o.signal) });
    const guarded: SourceConnector = {
      ...connector,
      read: (config, o) => this.iterable(label("a read"), () => connector.read(config, options(o))),
    };
    const { readFingerprinted, countRows, infer, textRows } = connector;
    if (readFingerprinted) {
      guarded.readFingerprinted = (config, o) => this.iterable(label("a read"), () => readFingerprinted(config, options(o)));
    }
    // Beside the read: a count that overruns is dropped, the run goes on.
    if (countRows) guarded.countRows = (config, o) => this.call(label("a row count", false), () => countRows(config, options(o)));
    if (infer) guarded.infer = (config, inputs, signal) => this.call(label("an inference"), () => infer(config, inputs, this.withAbandon(signal)));
    if (textRows) guarded.textRows = this.textSource(textRows, label);
    return guarded;
  }

  private textSource(textRows: TextRowsSource, label: (call: string) => CallLabel): TextRowsSource {
    const options = (o: ReadOptions): ReadOptions => ({ ...o, signal: this.withAbandon(o.signal) });
    return {
      columns: (config, o) => this.call(label("a column lookup"), () => textRows.columns(config, options(o))),
      read: (config, o) => this.iterable(label("a read"), () => textRows.read(config, options(o))),
      decode: (line, columns) => textRows.decode(line, columns),
    };
  }

  /**
   * The destination with every engine call guarded. `config` is the run's: when the calls are
   * abandoned, its connections are closed (bounded) so nothing keeps a socket to a silent server.
   */
  destination(connector: DestinationConnector, config: Row): DestinationConnector {
    const name = `${connector.definition.title} destination`;
    const label = (call: string): CallLabel => ({ connector: name, call, fatal: true });
    const { existingKeys, textRows, close } = connector;
    if (close) this.cleanups.push(() => close(config));
    const guarded: DestinationConnector = {
      ...connector,
      write: (c, records, o) => this.call(label("a write"), () => connector.write(c, records, { ...o, signal: this.withAbandon(o.signal) })),
    };
    if (existingKeys) {
      guarded.existingKeys = (c, stream, keys, signal) =>
        this.call(label("a lookup of existing keys"), () => existingKeys(c, stream, keys, this.withAbandon(signal)));
    }
    if (textRows) guarded.textRows = this.textDestination(textRows, label);
    // Also after the calls were abandoned (that is when it matters most), and never longer than the cleanup wait.
    if (close) guarded.close = (c) => settleWithin(close(c), CLEANUP_WAIT_MS);
    return guarded;
  }

  private textDestination(textRows: TextRowsDestination, label: (call: string) => CallLabel): TextRowsDestination {
    return {
      target: (config, stream) => this.call(label("a table lookup"), () => textRows.target(config, stream)),
      upsert: (config, stream, columns, lines, o) => this.call(label("a COPY write"), () => textRows.upsert(config, stream, columns, lines, o)),
      // No call to guard: a conversion made in the worker.
      valueText: textRows.valueText,
    };
  }
}
