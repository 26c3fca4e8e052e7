// A local HTTP receiver for the HTTP destination figures, run as its own process (so it does not
// share an event loop with the bench or the worker). POST anything: 200 {"ok":true}; a JSON array
// body counts as that many records. GET /__stats: counts since POST /__reset.
import http from "node:http";

let stats = { requests: 0, records: 0, first: 0, last: 0 };

const server = http.createServer((req, res) => {
  if (req.url === "/__stats") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(stats));
    return;
  }
  if (req.url === "/__reset") {
    stats = { requests: 0, records: 0, first: 0, last: 0 };
    res.writeHead(200).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const now = performance.timeOrigin + performance.now();
    const body = Buffer.concat(chunks);
    // Arrays start with '['; only the length matters, so the body is not parsed otherwise.
    let records = 1;
    if (body[0] === 0x5b) records = (JSON.parse(body.toString()) as unknown[]).length;
    stats.requests++;
    stats.records += records;
    if (!stats.first) stats.first = now;
    stats.last = now;
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`sink listening on ${typeof address === "object" && address ? address.port : 0}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
