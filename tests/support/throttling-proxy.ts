// A tiny HTTP proxy in front of a test server (an emulator, s3rver) that answers one chosen request
// with a throttling answer (429 or S3's 503 SlowDown, with or without Retry-After) instead of
// forwarding it, so a test can throttle a read or a write in its middle even where the server cannot
// throttle. Everything else is forwarded byte for byte, Host header included (S3 signatures cover it,
// and emulators that name their own address, e.g. an instance_url, then name the proxy).
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ThrottleAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export interface ProxiedRequest {
  method: string;
  url: string;
  /** The status the client got: the throttling answer, or the server's own. */
  status: number;
  throttled: boolean;
}

export interface ThrottlingProxy {
  url: string;
  log: ProxiedRequest[];
  /** Answers the `nth` (1-based, counted from now) request matching `match` with `answer`, once. */
  throttle(match: (method: string, url: string) => boolean, nth: number, answer: ThrottleAnswer): void;
  close(): Promise<void>;
}

export async function startThrottlingProxy(upstream: string): Promise<ThrottlingProxy> {
  const target = new URL(upstream);
  const log: ProxiedRequest[] = [];
  let rule: { match: (method: string, url: string) => boolean; left: number; answer: ThrottleAnswer } | undefined;

  const server: Server = createServer((req, res) => {
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    if (rule && rule.match(method, url) && --rule.left === 0) {
      const { answer } = rule;
      rule = undefined;
      log.push({ method, url, status: answer.status, throttled: true });
      // Drain the body first: a client still sending would see a reset instead of the answer.
      req.resume();
      req.on("end", () => {
        res.writeHead(answer.status, { "content-length": String(Buffer.byteLength(answer.body)), ...answer.headers });
        res.end(answer.body);
      });
      return;
    }
    const out = request(
      { host: target.hostname, port: target.port, method, path: url, headers: req.headers as IncomingHttpHeaders },
      (up) => {
        log.push({ method, url, status: up.statusCode ?? 0, throttled: false });
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    throttle(match, nth, answer) {
      rule = { match, left: nth, answer };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The request the proxy throttled and, after it, the same request forwarded again: the retry. */
export function throttledThenRetried(log: ProxiedRequest[]): { throttled: ProxiedRequest; retry: ProxiedRequest | undefined } {
  const at = log.findIndex((r) => r.throttled);
  if (at < 0) throw new Error("The proxy throttled no request.");
  const throttled = log[at];
  return { throttled, retry: log.slice(at + 1).find((r) => !r.throttled && r.method === throttled.method && r.url === throttled.url) };
}
