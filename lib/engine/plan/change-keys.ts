// The keys a plan would delete or update, kept so an approval can bind to them (approval.ts): the
// keys themselves up to APPROVAL_MAX_KEYS per action, and always their count and a digest of the
// set. The digest is a sum of each key's SHA-256, lane by lane, so it does not depend on the order
// the keys were read in (a model's rows come in any order) and needs no sort and no memory per key.
import { createHash } from "node:crypto";

/** Keys kept one by one per action; past it, an approval binds to the exact set through its digest. */
export const APPROVAL_MAX_KEYS = 10_000;

/** What a plan stores of one action's keys. */
export interface ChangeKeys {
  count: number;
  /** Order-independent digest of the set (64 hex digits). */
  digest: string;
  /** The keys, sorted; null past APPROVAL_MAX_KEYS. */
  keys: string[] | null;
}

const LANES = 8;

export class ChangeKeyCollector {
  private count = 0;
  private readonly sum = new Uint32Array(LANES);
  private keys: string[] | null = [];

  /** Adds one key (each key once: the plan counts a key under one action once). */
  add(key: string): void {
    this.count++;
    const h = createHash("sha256").update(key, "utf8").digest();
    for (let i = 0; i < LANES; i++) this.sum[i] = (this.sum[i] + h.readUInt32BE(i * 4)) >>> 0;
    if (this.keys) {
      if (this.keys.length < APPROVAL_MAX_KEYS) this.keys.push(key);
      else this.keys = null;
    }
  }

  result(): ChangeKeys {
    const digest = Array.from(this.sum, (w) => w.toString(16).padStart(8, "0")).join("");
    return { count: this.count, digest, keys: this.keys ? [...this.keys].sort() : null };
  }
}

/** The keys of a list, as a plan would keep them (tests, and the delete-time check). */
export function changeKeysOf(keys: Iterable<string>): ChangeKeys {
  const c = new ChangeKeyCollector();
  for (const k of keys) c.add(k);
  return c.result();
}
