// A JSON API of the kinds the Http source reads, one collection (orders) served four ways, as common
// public APIs page them: offset/limit (GET /v1/orders?offset=&limit=, {data, total}), page numbers
// (GET /v2/orders?page=&per_page=, {data}), cursors (GET /v3/orders?cursor=&limit=, {data, meta:
// {next_cursor}}, with an updated_since filter), and an SQL-over-HTTP endpoint (POST /sql with
// {"query": "SELECT * FROM orders LIMIT n OFFSET m"}, answering {columns, rows}, as warehouse
// statement APIs do). Bearer auth (401 {error}), a status filter parameter, and 429 with Retry-After
// on demand. Tests only.
import type { ServerResponse } from "node:http";
// Not ./common: that one brings the engine's Loader.
import { json, startHttpServer, type ReceivedRequest } from "../support/connectors";

export interface Order {
  id: number;
  customer: string;
  amount: number;
  status: string;
  updated_at: string;
}

export interface HttpSourceEmulatorOptions {
  token: string;
  orders: Order[];
}

const MAX_LIMIT = 500;

export async function startHttpSourceEmulator(options: HttpSourceEmulatorOptions) {
  let orders = options.orders;
  let forcedThrottles = 0;
  const stats = { throttled: 0 };

  const filtered = (url: URL) => {
    const status = url.searchParams.get("status");
    const since = url.searchParams.get("updated_since");
    return orders.filter((o) => (!status || o.status === status) && (!since || o.updated_at >= since));
  };
  const number = (url: URL, name: string, fallback: number) => {
    const v = Number(url.searchParams.get(name) ?? fallback);
    return Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback;
  };

  function sql(req: ReceivedRequest, res: ServerResponse) {
    let query = "";
    try {
      query = String((JSON.parse(req.body) as { query?: unknown }).query ?? "");
    } catch {
      return json(res, 400, { error: "the body is not JSON" });
    }
    const m = /^\s*select \* from orders(?: where status = '(\w+)')?(?: limit (\d+) offset (\d+))?\s*$/i.exec(query);
    if (!m) return json(res, 400, { error: `cannot run: ${query.slice(0, 100)}` });
    const rows = orders.filter((o) => !m[1] || o.status === m[1]);
    const page = m[2] !== undefined ? rows.slice(Number(m[3]), Number(m[3]) + Number(m[2])) : rows;
    json(res, 200, { columns: ["id", "customer", "amount", "status", "updated_at"], rows: page.map((o) => [o.id, o.customer, o.amount, o.status, o.updated_at]) });
  }

  const server = await startHttpServer((req, res) => {
    const url = new URL(req.url, "http://emulator");
    if (req.headers.authorization !== `Bearer ${options.token}`) return json(res, 401, { error: "unauthorized", message: "A valid bearer token is required." });
    if (forcedThrottles > 0) {
      forcedThrottles--;
      stats.throttled++;
      return json(res, 429, { error: "rate_limited", message: "Too many requests." }, { "retry-after": "1" });
    }
    if (req.method === "POST" && url.pathname === "/sql") return sql(req, res);
    if (req.method !== "GET") return json(res, 405, { error: "method_not_allowed" });
    const rows = filtered(url);
    if (url.pathname === "/v1/orders") {
      const offset = number(url, "offset", 0);
      const limit = Math.min(MAX_LIMIT, number(url, "limit", 50));
      return json(res, 200, { data: rows.slice(offset, offset + limit), total: rows.length });
    }
    if (url.pathname === "/v2/orders") {
      const page = Math.max(1, number(url, "page", 1));
      const perPage = Math.min(MAX_LIMIT, number(url, "per_page", 50));
      return json(res, 200, { data: rows.slice((page - 1) * perPage, page * perPage), page });
    }
    if (url.pathname === "/v3/orders") {
      const cursor = url.searchParams.get("cursor");
      const start = cursor ? Number(Buffer.from(cursor, "base64url").toString("utf8")) : 0;
      const limit = Math.min(MAX_LIMIT, number(url, "limit", 50));
      const end = start + limit;
      return json(res, 200, { data: rows.slice(start, end), meta: { next_cursor: end < rows.length ? Buffer.from(String(end)).toString("base64url") : null } });
    }
    json(res, 404, { error: "not_found" });
  });

  return {
    url: server.url,
    stats,
    requests: server.requests,
    setOrders(next: Order[]): void {
      orders = next;
    },
    /** The next `n` requests are answered 429 with Retry-After: 1. */
    throttleNext(n: number): void {
      forcedThrottles = n;
    },
    close: () => server.close(),
  };
}

export function makeOrders(count: number, updatedAt = "2026-01-01T00:00:00Z"): Order[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    customer: `customer-${i + 1}@example.com`,
    amount: Math.round((i + 1) * 12.5 * 100) / 100,
    status: i % 3 === 0 ? "refunded" : "paid",
    updated_at: updatedAt,
  }));
}
