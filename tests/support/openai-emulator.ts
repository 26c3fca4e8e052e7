// A small emulator of the OpenAI API (GET /v1/models, POST /v1/chat/completions, POST /v1/embeddings),
// written from OpenAI's published API reference, on 127.0.0.1 for the OpenAI source's tests (vitest
// and Playwright). Deterministic: a reply echoes the prompt, a vector is computed from the text.
// Standalone (no @/ imports) so that the Playwright specs can start it too.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface EmulatorRequest {
  method: string;
  path: string;
  authorization?: string;
  body: unknown;
}

export interface EmulatorOptions {
  /** Required Bearer key; none: any or no key is accepted (as local servers do). */
  apiKey?: string;
  models?: string[];
  /** A 401 repeats the presented key in full (an attack on masking; OpenAI itself shortens it). */
  echoKeyInErrors?: boolean;
  /** The assistant's reply for the given messages (default: "Echo: " + the last user message). */
  reply?: (messages: { role: string; content: string }[]) => string;
}

export interface Fault {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface OpenAiEmulator {
  url: string;
  requests: EmulatorRequest[];
  /** The next `count` API requests (any path) are answered with `fault`. */
  failNext(fault: Fault, count?: number): void;
  close(): Promise<void>;
}

const errorBody = (message: string, type: string, code: string | null, param: string | null = null) => ({ error: { message, type, param, code } });

/** A deterministic vector of `dimensions` numbers for a text (the same text, the same vector). */
export function emulatedEmbedding(text: string, dimensions = 3): number[] {
  let h = 2166136261;
  const out: number[] = [];
  for (let d = 0; d < dimensions; d++) {
    for (const c of `${d}:${text}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
    out.push(Math.round((h / 0xffffffff) * 1e6) / 1e6);
  }
  return out;
}

/** Tokens as the emulator counts them: one per started 4 characters (OpenAI's rule of thumb). */
export const emulatedTokens = (text: string) => Math.ceil(text.length / 4);

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export async function startOpenAiEmulator(options: EmulatorOptions = {}): Promise<OpenAiEmulator> {
  const models = options.models ?? ["gpt-test-mini", "text-embedding-test"];
  const requests: EmulatorRequest[] = [];
  const faults: Fault[] = [];
  const reply = options.reply ?? ((messages) => `Echo: ${[...messages].reverse().find((m) => m.role === "user")?.content ?? ""}`);

  function handle(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return send(res, 400, errorBody("We could not parse the JSON body of your request.", "invalid_request_error", null));
    }
    requests.push({ method: req.method ?? "", path, authorization: req.headers.authorization, body });
    const fault = faults.shift();
    if (fault) return send(res, fault.status, fault.body ?? errorBody("Rate limit reached.", "requests", "rate_limit_exceeded"), fault.headers);
    if (options.apiKey) {
      const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!presented) return send(res, 401, errorBody("You didn't provide an API key.", "invalid_request_error", null));
      if (presented !== options.apiKey) {
        const shown = options.echoKeyInErrors ? presented : `${presented.slice(0, 3)}***${presented.slice(-2)}`;
        return send(res, 401, errorBody(`Incorrect API key provided: ${shown}.`, "invalid_request_error", "invalid_api_key"));
      }
    }
    if (req.method === "GET" && path === "/v1/models") {
      return send(res, 200, { object: "list", data: models.map((id) => ({ id, object: "model", created: 1700000000, owned_by: "emulator" })) });
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/v1/embeddings")) {
      return send(res, 404, errorBody(`Invalid URL (${req.method} ${path})`, "invalid_request_error", null));
    }
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b.model !== "string" || !models.includes(b.model)) {
      return send(res, 404, errorBody(`The model \`${String(b.model)}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found"));
    }
    if (path === "/v1/chat/completions") return chat(b, res);
    return embed(b, res);
  }

  function chat(b: Record<string, unknown>, res: ServerResponse): void {
    const messages = b.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      return send(res, 400, errorBody("'messages' must be a non-empty array.", "invalid_request_error", null, "messages"));
    }
    const typed = messages as { role: string; content: string }[];
    const json = (b.response_format as { type?: string } | undefined)?.type === "json_object";
    // The reference: JSON mode requires the word "json" somewhere in the messages.
    if (json && !typed.some((m) => /json/i.test(String(m.content)))) {
      return send(res, 400, errorBody("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", "invalid_request_error", null, "messages"));
    }
    let content = reply(typed);
    let finish = "stop";
    const max = typeof b.max_tokens === "number" ? b.max_tokens : undefined;
    if (max !== undefined && emulatedTokens(content) > max) {
      content = content.slice(0, max * 4);
      finish = "length";
    }
    const prompt = typed.reduce((n, m) => n + emulatedTokens(String(m.content)), 0);
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: "chat.completion",
      created: 1700000000,
      model: b.model,
      choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: finish }],
      usage: { prompt_tokens: prompt, completion_tokens: emulatedTokens(content), total_tokens: prompt + emulatedTokens(content) },
    });
  }

  function embed(b: Record<string, unknown>, res: ServerResponse): void {
    const input = typeof b.input === "string" ? [b.input] : b.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === "string" && t !== "")) {
      return send(res, 400, errorBody("'input' must be a non-empty string or array of non-empty strings.", "invalid_request_error", null, "input"));
    }
    const dimensions = typeof b.dimensions === "number" ? b.dimensions : 3;
    const data = (input as string[]).map((text, index) => ({ object: "embedding", index, embedding: emulatedEmbedding(text, dimensions) }));
    // Listed last first: a client must place vectors by `index`, not by position.
    const tokens = (input as string[]).reduce((n, t) => n + emulatedTokens(t), 0);
    send(res, 200, { object: "list", data: data.reverse(), model: b.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (fault, count = 1) => {
      for (let i = 0; i < count; i++) faults.push(fault);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
