// Which of a batch's mapped records the destination already has, for the update and insert write
// modes. A destination that can be asked (SQL: existingKeys) answers for its stream's primary key,
// read from each mapped payload, in one query per batch. Others (HTTP, Slack) cannot be asked: there
// a key counts as present when this sync delivered it before (a sync_state with a delivered
// fingerprint that is not a skip). Reads only; never writes.
import "server-only";
import type { Row, WriteRecord } from "@/lib/connectors/types";
import { ConnectorError } from "@/lib/connectors/shared/errors";
import { sql } from "kysely";
import { db } from "@/lib/db/kysely";
import type { RunContext } from "./context";

/** How a record's presence was judged, and how its key reads in a sentence. */
export interface Presence {
  present: boolean;
  /** destination: the destination answered; tracking: this sync's own deliveries; nokey: the payload has no key value. */
  by: "destination" | "tracking" | "nokey";
  /** The key as a person reads it: the destination key's values, or the model's key for tracking. */
  label: string;
}

const blank = (v: unknown) => v === null || v === undefined || v === "";

const labelOf = (values: unknown[]) =>
  values.length === 1 ? String(values[0]) : `(${values.map((v) => (typeof v === "string" ? JSON.stringify(v) : String(v))).join(", ")})`;

/** One Presence per record, in order. Deletes must not be passed: they are never split. */
export async function presenceOf(ctx: RunContext, records: WriteRecord[], signal?: AbortSignal): Promise<Presence[]> {
  const pk = ctx.stream.primary_key ?? [];
  const ask = ctx.destination.existingKeys;
  if (ask && pk.length > 0) {
    const result: Presence[] = new Array(records.length);
    const asked: number[] = [];
    const keys: Row[] = [];
    records.forEach((r, i) => {
      const values = pk.map((c) => r.payload[c]);
      if (values.some(blank)) result[i] = { present: false, by: "nokey", label: pk.map((c) => `"${c}"`).join(", ") };
      else {
        asked.push(i);
        keys.push(Object.fromEntries(pk.map((c) => [c, r.payload[c]])));
        result[i] = { present: false, by: "destination", label: labelOf(values) };
      }
    });
    let found: boolean[];
    try {
      found = await ask(ctx.destinationConfig, ctx.stream, keys, signal);
    } catch (err) {
      const message = err instanceof ConnectorError || err instanceof Error ? err.message : String(err);
      throw new Error(`Could not check which keys are already in the destination (write mode ${ctx.sync.writeMode}): ${message}`);
    }
    asked.forEach((index, n) => (result[index].present = found[n] === true));
    return result;
  }
  const delivered = await deliveredKeys(ctx.sync.id, records.map((r) => r.key));
  return records.map((r) => ({ present: delivered.has(r.key), by: "tracking", label: r.key }));
}

/** The keys among `keys` this sync delivered before and still tracks as delivered. */
async function deliveredKeys(syncId: number, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  // The keys travel as one JSON text: a text[] parameter of many keys is slower to bind.
  // Rows and state blocks alike (state-blocks.ts).
  const { rows } = await sql<{ primary_key: string }>`SELECT primary_key FROM ds_states_of(${syncId}::int, ARRAY(SELECT json_array_elements_text(${JSON.stringify(keys)}::json)))
    WHERE fingerprint <> '' AND last_status <> 'skipped'`.execute(db());
  return new Set(rows.map((r) => r.primary_key));
}
