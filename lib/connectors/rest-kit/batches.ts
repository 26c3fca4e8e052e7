// Cutting a chunk of records into requests a vendor accepts: at most maxRecords each, and a JSON body
// of at most maxBytes. The engine's chunks are already maxRecords long (the stream's batch_size);
// bytes depend on the payloads, so they are counted here, per record, as the body will carry them.
import { exactJson } from "../shared/values";

/** A record ready to send: its element of the body and that element's size as JSON (UTF-8 bytes). */
export interface Prepared<T> {
  entry: T;
  item: unknown;
  size: number;
}

export function prepare<T>(entry: T, item: unknown): Prepared<T> {
  return { entry, item, size: Buffer.byteLength(exactJson(item)) };
}

export interface RequestPlan<T> {
  requests: Prepared<T>[][];
  /** Records that alone exceed the byte limit: never sent. */
  tooBig: Prepared<T>[];
}

/**
 * Greedy, in order: a request is closed when the next record would pass either limit. `overhead` is
 * the size of the body around the items (the envelope with no items); each item after the first
 * adds a comma.
 */
export function planRequests<T>(items: Prepared<T>[], maxRecords: number, maxBytes: number | undefined, overhead: number): RequestPlan<T> {
  const plan: RequestPlan<T> = { requests: [], tooBig: [] };
  const budget = maxBytes ?? Number.POSITIVE_INFINITY;
  let current: Prepared<T>[] = [];
  let bytes = overhead;
  for (const item of items) {
    if (overhead + item.size > budget) {
      plan.tooBig.push(item);
      continue;
    }
    const added = item.size + (current.length > 0 ? 1 : 0);
    if (current.length >= maxRecords || bytes + added > budget) {
      plan.requests.push(current);
      current = [];
      bytes = overhead;
    }
    bytes += item.size + (current.length > 0 ? 1 : 0);
    current.push(item);
  }
  if (current.length > 0) plan.requests.push(current);
  return plan;
}
