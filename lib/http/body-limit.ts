// The one request-body limit, applied by the HTTP server (scripts/start.ts) before Next sees a
// request, so it holds for every route: the REST API, next-auth's /api/auth/*, pages and server
// actions alike. A declared Content-Length over the limit is refused unread; a chunked body (no
// length declared) is counted as it arrives and refused as soon as it passes the limit, and one
// within it is handed to Next as a request with a known length. The route wrapper
// (lib/http/handler.ts) checks the same limit again for servers started without scripts/start.ts.
import { IncomingMessage, type ServerResponse } from "node:http";
import { errorBody } from "./error-body";

export const MAX_BODY_BYTES = 1024 * 1024;
export const BODY_TOO_LARGE_MESSAGE = "The request body is larger than 1 MB.";

/** Past this much, a client still sending after its 413 is cut off rather than drained. */
const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

/**
 * Answers 413 in the project's error shape and closes the connection. What the client is still
 * sending is read and dropped (never kept), up to a bound: a socket closed mid-upload would reach
 * the client as a reset instead of this answer.
 */
function refuse(req: IncomingMessage, res: ServerResponse, declared?: number): null {
  if (!res.headersSent) {
    // A body of known length that will be drained keeps the connection: closing it while the client
    // still sends made the client see EPIPE instead of this answer. Longer or unknown bodies close it.
    const keep = declared !== undefined && declared <= DRAIN_LIMIT_BYTES;
    res.writeHead(413, keep ? { "content-type": "application/json" } : { "content-type": "application/json", connection: "close" });
    res.end(JSON.stringify(errorBody(413, "payload_too_large", BODY_TOO_LARGE_MESSAGE)));
  }
  let drained = 0;
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) req.socket.destroy();
  });
  req.resume();
  return null;
}

/** The same request with its (already read) body replayed from memory. */
function replay(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new IncomingMessage(req.socket);
  copy.method = req.method;
  copy.url = req.url;
  copy.httpVersion = req.httpVersion;
  copy.httpVersionMajor = req.httpVersionMajor;
  copy.httpVersionMinor = req.httpVersionMinor;
  const headers = { ...req.headers, "content-length": String(body.length) };
  delete headers["transfer-encoding"];
  copy.headers = headers;
  copy.rawHeaders = Object.entries(headers).flatMap(([k, v]) =>
    Array.isArray(v) ? v.flatMap((x) => [k, x]) : [k, String(v)],
  );
  if (body.length) copy.push(body);
  copy.push(null);
  copy.complete = true;
  return copy;
}

/**
 * The request Next should handle, or null when this answered 413 itself. Requests with a declared
 * length within the limit pass through untouched (Node's parser never reads past that length).
 */
export async function limitBody(
  req: IncomingMessage,
  res: ServerResponse,
  max = MAX_BODY_BYTES,
): Promise<IncomingMessage | null> {
  const declared = req.headers["content-length"];
  if (declared !== undefined) return Number(declared) > max ? refuse(req, res, Number(declared)) : req;
  if (req.headers["transfer-encoding"] === undefined) return req;
  // Events rather than for-await: leaving an async iterator early destroys the socket.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off("data", collect);
      chunks.length = 0;
      resolve(refuse(req, res));
    };
    req.on("data", collect);
    req.on("end", () => {
      if (size <= max) resolve(replay(req, Buffer.concat(chunks)));
    });
    // The client went away mid-body: nothing to answer.
    req.on("error", () => resolve(null));
    req.on("close", () => {
      if (!req.complete) resolve(null);
    });
  });
}
