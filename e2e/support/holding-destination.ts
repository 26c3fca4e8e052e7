// An HTTP destination on 127.0.0.1 (a port the system picks) that answers 200 at once, except, while
// holding, to requests carrying a record with `"hold":true`: those stay open until release(). A run
// that reaches such rows stays observable mid-way for as long as the test needs, with no sleep.
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface HoldingDestination {
  /** http://127.0.0.1:<port>/hook */
  url: string;
  /** Requests answered so far. */
  answered(): number;
  /** Requests held open right now. */
  held(): number;
  /** From now on, hold requests with a `"hold":true` record. */
  hold(): void;
  /** Answers every held request (200) and stops holding. */
  release(): void;
  close(): Promise<void>;
}

export async function holdingDestination(): Promise<HoldingDestination> {
  let holding = false;
  let answered = 0;
  const waiting = new Set<ServerResponse>();
  const answer = (res: ServerResponse) => {
    waiting.delete(res);
    if (res.writableEnded || res.destroyed) return;
    answered++;
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      if (holding && /"hold":\s*true/.test(body)) {
        waiting.add(res);
        // The engine gave up on it (a cancel aborts the request): nothing to answer any more.
        res.on("close", () => waiting.delete(res));
      } else answer(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    answered: () => answered,
    held: () => waiting.size,
    hold: () => (holding = true),
    release: () => {
      holding = false;
      for (const res of [...waiting]) answer(res);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of [...waiting]) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
