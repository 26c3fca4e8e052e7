// Next sends a response's headers in a write of their own: it calls flushHeaders() just before
// writing the first chunk of the body, so every answer took two or three socket writes (headers,
// body, end of chunks) where one would do. Held to the end of the tick, the headers leave with
// the first chunk instead; a response whose body comes later (a stream) still sends them then.
import type { ServerResponse } from "node:http";

export function coalesceHeaderFlush(res: ServerResponse): void {
  const flush = res.flushHeaders.bind(res);
  let queued = false;
  res.flushHeaders = () => {
    if (queued || res.headersSent) return;
    queued = true;
    process.nextTick(() => {
      if (!res.headersSent && !res.destroyed) flush();
    });
  };
}
