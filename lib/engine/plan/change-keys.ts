// The keys a plan would delete or update, kept so an approval can bind to them (approval.ts): the
// keys themselves up to APPROVAL_MAX_KEYS per action, and always their count and a digest of the
// set. The digest is a sum of each key's MD5, lane by lane, so it does not depend on the order the
// keys were read in (a model's rows come in any order) and needs no sort and no memory per key. It
// tells a changed set from the approved one; it is no defence against keys crafted to collide (whoever
// controls the source that far can also be the one who approves). Hashed only past the bound: below
// it the kept keys are compared one by one, and the digest is made from them at the end.
import { SeededMd5 } from "../md5";

/** Keys kept one by one per action; past it, an approval binds to the exact set through its digest. */
export const APPROVAL_MAX_KEYS = 10_000;

/** What a plan stores of one action's keys. */
export interface ChangeKeys {
  count: number;
  /** Order-independent digest of the set (32 hex digits). */
  digest: string;
  /** The keys, sorted; null past APPROVAL_MAX_KEYS. */
  keys: string[] | null;
}

const LANES = 4;
const SEED = "datasync approval keys\n";

/** A running lane-wise sum of MD5s. */
class SetDigest {
  private readonly md5 = new SeededMd5(SEED);
  private readonly out = new Uint8Array(16);
  private readonly view = new DataView(this.out.buffer);
  readonly sum = new Uint32Array(LANES);

  add(key: string): void {
    this.md5.digest(key, this.out, 0);
    for (let i = 0; i < LANES; i++) this.sum[i] = (this.sum[i] + this.view.getUint32(i * 4)) >>> 0;
  }

  hex(): string {
    return Array.from(this.sum, (w) => w.toString(16).padStart(8, "0")).join("");
  }
}

export class ChangeKeyCollector {
  private count = 0;
  /** Past the bound only: the kept keys folded in, then every further key. */
  private digest: SetDigest | null = null;
  private keys: string[] | null = [];

  /** Adds one key (each key once: the plan counts a key under one action once). */
  add(key: string): void {
    this.count++;
    if (this.keys !== null && this.keys.length < APPROVAL_MAX_KEYS) {
      this.keys.push(key);
      return;
    }
    if (this.digest === null) {
      this.digest = new SetDigest();
      for (const k of this.keys ?? []) this.digest.add(k);
      this.keys = null;
    }
    this.digest.add(key);
  }

  result(): ChangeKeys {
    let digest = this.digest;
    if (digest === null) {
      digest = new SetDigest();
      for (const k of this.keys ?? []) digest.add(k);
    }
    return { count: this.count, digest: digest.hex(), keys: this.keys ? [...this.keys].sort() : null };
  }
}

/** The keys of a list, as a plan would keep them (tests, and the delete-time check). */
export function changeKeysOf(keys: Iterable<string>): ChangeKeys {
  const c = new ChangeKeyCollector();
  for (const k of keys) c.add(k);
  return c.result();
}
