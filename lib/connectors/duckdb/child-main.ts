// The DuckDB child process: isolated.ts spawns one per operation under an address-space limit, so a
// query that allocates past DuckDB's own memory_limit fails here ("Out of Memory Error") instead of
// taking the server's memory. It answers one request, then exits. A read sends one batch at a time
// and waits for "next" (the parent's backpressure).
import type { FingerprintedBatch, ReadOptions, Row } from "../types";
import { ConnectorError, errorMessage } from "../shared/errors";
import type { ChildReply, ChildRequest } from "./child-protocol";
import { duckdbInProcess, duckdbOver } from "./source";
import { directorySettings } from "./session";

function send(reply: ChildReply): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(reply, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}

let wake: (() => void) | undefined;
const next = () => new Promise<void>((resolve) => (wake = resolve));

async function stream<T>(batches: AsyncIterable<T>, ship: (batch: T) => ChildReply): Promise<void> {
  for await (const batch of batches) {
    await send(ship(batch));
    await next();
  }
  await send({ type: "end" });
}

const shipped = (b: FingerprintedBatch): ChildReply => ({
  type: "fingerprinted",
  keyValues: b.keyValues,
  fingerprints: b.fingerprints,
  rows: Array.from({ length: b.length }, (_, i) => b.row(i)),
});

async function serve(req: ChildRequest): Promise<void> {
  const { config } = req;
  const dir = req.dir;
  const duck = dir === undefined ? duckdbInProcess : duckdbOver((c) => directorySettings(dir, c));
  switch (req.op) {
    case "check":
      return send({ type: "result", value: await duck.check(config) });
    case "discover":
      return send({ type: "result", value: await duck.discover(config) });
    case "query":
      return send({ type: "result", value: await duck.query(config, req.sql, req.limit) });
    case "read":
      return stream(duck.read(config, req.options as ReadOptions), (rows: Row[]) => ({ type: "rows", rows }));
    case "readFingerprinted":
      return stream(duck.readFingerprinted(config, req.options), shipped);
  }
}

process.on("message", (message: ChildRequest | { op: "next" }) => {
  if (message.op === "next") {
    wake?.();
    return;
  }
  serve(message)
    .catch((err: unknown) =>
      send({ type: "error", message: errorMessage(err), connector: err instanceof ConnectorError }),
    )
    .finally(() => process.disconnect());
});
