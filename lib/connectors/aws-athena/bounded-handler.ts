// The SDK's HTTP handler with two bounds the SDK lacks: an answer's body is cut off (the call fails)
// past MAX_ANSWER_BYTES, and each exchange, body included, must end within CALL_DEADLINE_MS. The
// SDK's requestTimeout only notices idle gaps, so a server trickling bytes, or sending an endless
// body, would otherwise hold the call and grow its memory without end.
import { Transform, type Readable } from "node:stream";
import { NodeHttpHandler } from "@smithy/node-http-handler";

type HttpRequest = Parameters<NodeHttpHandler["handle"]>[0];
type HttpHandlerOptions = NonNullable<Parameters<NodeHttpHandler["handle"]>[1]>;
type Handled = Awaited<ReturnType<NodeHttpHandler["handle"]>>;
type NodeHttpHandlerOptions = Exclude<ConstructorParameters<typeof NodeHttpHandler>[0], undefined | ((...args: never[]) => unknown)>;

/** Athena's answers are small (a results page of 1,000 rows is a few MB at most). */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** One API exchange, headers to last byte (the query itself is polled, call by call). */
export const CALL_DEADLINE_MS = 60_000;

export class AnswerTooLargeError extends Error {
  override name = "AnswerTooLarge";
}

export class BoundedHttpHandler extends NodeHttpHandler {
  constructor(
    options: NodeHttpHandlerOptions,
    private readonly bounds: { maxBytes: number; deadlineMs: number } = { maxBytes: MAX_ANSWER_BYTES, deadlineMs: CALL_DEADLINE_MS },
  ) {
    super(options);
  }

  override async handle(request: HttpRequest, options: HttpHandlerOptions = {}): Promise<Handled> {
    const { maxBytes, deadlineMs } = this.bounds;
    const controller = new AbortController();
    const caller = options.abortSignal as AbortSignal | undefined;
    const onCallerAbort = () => controller.abort(caller?.reason);
    if (caller?.aborted) controller.abort(caller.reason);
    else caller?.addEventListener?.("abort", onCallerAbort, { once: true });
    // The bounded body, once the headers came (the deadline then ends it too).
    const held: { body?: Transform } = {};
    const expire = () => {
      const err = new Error(`Athena's endpoint did not finish its answer within ${deadlineMs / 1000} s.`);
      err.name = "TimeoutError";
      controller.abort(err);
      held.body?.destroy(err);
    };
    const timer = setTimeout(expire, deadlineMs);
    const done = () => {
      clearTimeout(timer);
      caller?.removeEventListener?.("abort", onCallerAbort);
    };
    let out: Handled;
    try {
      out = await super.handle(request, { ...options, abortSignal: controller.signal });
    } catch (err) {
      done();
      throw err;
    }
    const source = out.response.body as Readable | undefined;
    if (!source || typeof source.pipe !== "function") {
      done();
      return out;
    }
    let seen = 0;
    const body = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        seen += chunk.length;
        if (seen > maxBytes) {
          source.destroy();
          callback(new AnswerTooLargeError(`Athena's endpoint answered more than ${maxBytes / 1024 / 1024} MiB in one call, more than any Athena answer; the call was stopped.`));
          return;
        }
        callback(null, chunk);
      },
    });
    held.body = body;
    source.on("error", (err) => body.destroy(err));
    body.on("close", () => {
      done();
      source.destroy();
    });
    source.pipe(body);
    out.response.body = body;
    return out;
  }
}
