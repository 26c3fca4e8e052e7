// The order keys have in state blocks (state-blocks.ts), and how a batch's keys are grouped into
// ranges of blocks. Pure functions: no database.
import { keepShape } from "@/lib/runtime/keep-shape";

/**
 * Orders two texts as collation "C" does (UTF-8 bytes, that is code points). JavaScript's `<` orders
 * UTF-16 units, which differs when a surrogate (U+10000 and up) meets U+E000–U+FFFF.
 */
export function compareC(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Bytes of `s` in UTF-8 as the COPY writes it (a lone surrogate becomes U+FFFD: 3 bytes). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** True when `s` has a UTF-16 unit at or past U+D800, where UTF-16 order and collation C differ. */
function hasWide(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xd800) return true;
  return false;
}

/**
 * A key in block order, as the SQL function ds_block_key writes it: its UTF-8 length in 10 digits,
 * then the key, compared bytewise. A source read in key order (integers too, whose text bytewise
 * interleaves lengths) then fills blocks whose ranges do not overlap.
 */
export function blockKey(key: string): string {
  return blockKeyOf(utf8Length(key), key);
}

function blockKeyOf(utf8Bytes: number, key: string): string {
  return String(utf8Bytes).padStart(10, "0") + key;
}

/**
 * Keys a block holds at most. A lookup reads the blocks whose key range holds the key (one for a
 * source read in key order) and scans the keys there: small blocks keep that scan short and a 1%
 * change from touching every block; ~2 bytes of a block's own overhead per key at this size.
 */
export const BLOCK_KEYS = 64;

/** Keys of a batch that go into blocks together: their positions in block order, and the range they span. */
export interface KeyGroup {
  positions: number[];
  low: string;
  high: string;
}

/** The batch's keys with their UTF-8 lengths, compared in block order. */
class BatchKeys {
  readonly lengths: Int32Array;
  readonly wide: boolean;
  /** The keys as numbers when every one is an integer (the common primary key), else null. */
  readonly numbers: Float64Array | null;

  /** Every key is a non-negative integer in its shortest digits: block order is then the numbers' order. */
  private readonly naturals: boolean;
  /** The step past which integer keys jump (jumpsAt). */
  private readonly jump: number;

  constructor(readonly keys: readonly string[]) {
    this.lengths = new Int32Array(keys.length);
    let wide = false;
    let naturals = true;
    let numbers: Float64Array | null = new Float64Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const n = numbers ? integerOf(key) : undefined;
      if (n === undefined) {
        numbers = null;
        naturals = false;
        this.lengths[i] = utf8Length(key);
        if (!wide && hasWide(key)) wide = true;
        continue;
      }
      // Digits (and a minus) are ASCII: a character a byte.
      this.lengths[i] = key.length;
      numbers![i] = n;
      if (naturals && (n < 0 || Object.is(n, -0) || (key.length > 1 && key.charCodeAt(0) === 0x30))) naturals = false;
    }
    this.wide = wide;
    this.numbers = numbers;
    this.naturals = naturals;
    this.jump = numbers ? BLOCK_KEYS * medianStep(numbers) : 0;
  }

  /**
   * Integer keys only: whether the step between keys i - 1 and i is a jump from one stream to
   * another, past BLOCK_KEYS times the batch's median step. Keys read in order step by about the
   * median; a jump left in a block would span every key between the two streams.
   */
  jumpsAt(i: number): boolean {
    const { numbers } = this;
    if (!numbers) return false;
    return Math.abs(numbers[i] - numbers[i - 1]) > this.jump;
  }

  /** Whether key i comes before key j in block order (keys are unique). */
  before(i: number, j: number): boolean {
    if (this.naturals) return this.numbers![i] < this.numbers![j];
    const [a, b] = [this.lengths[i], this.lengths[j]];
    if (a !== b) return a < b;
    return this.wide ? compareC(this.keys[i], this.keys[j]) < 0 : this.keys[i] < this.keys[j];
  }

  blockKey(i: number): string {
    return blockKeyOf(this.lengths[i], this.keys[i]);
  }

  group(positions: number[]): KeyGroup {
    return { positions, low: this.blockKey(positions[0]), high: this.blockKey(positions[positions.length - 1]) };
  }

  /**
   * The positions in block order. V8 sorts the block keys without a comparator natively (several
   * times faster than with one), in UTF-16 order, which is C's unless a key has a unit at or past
   * U+D800: then compareC sorts. A key holds no NUL (keyText refuses it), so "block key, NUL,
   * position" sorts by the block key first.
   */
  sorted(positions: readonly number[]): number[] {
    const tagged = positions.map((i) => `${this.blockKey(i)}\u0000${i}`);
    if (this.wide) tagged.sort(compareC);
    else tagged.sort();
    return tagged.map((t) => Number(t.slice(t.lastIndexOf("\u0000") + 1)));
  }
}

/** The integer a key's text is (digits, an optional minus, at most 15 digits: exact), else undefined. */
function integerOf(key: string): number | undefined {
  const negative = key.charCodeAt(0) === 0x2d;
  const start = negative ? 1 : 0;
  if (key.length === start || key.length - start > 15) return undefined;
  let n = 0;
  for (let i = start; i < key.length; i++) {
    const d = key.charCodeAt(i) - 0x30;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

/** The median absolute step between consecutive numbers (at least 1), from up to ~1,000 of them. */
function medianStep(numbers: Float64Array): number {
  const every = Math.max(1, Math.floor(numbers.length / 1024));
  const steps: number[] = [];
  for (let i = every; i < numbers.length; i += every) steps.push(Math.abs(numbers[i] - numbers[i - 1]));
  if (steps.length === 0) return 1;
  steps.sort((a, b) => a - b);
  return Math.max(1, steps[steps.length >> 1]);
}

function range(start: number, end: number): number[] {
  const out = new Array<number>(end - start);
  for (let i = start; i < end; i++) out[i - start] = i;
  return out;
}

/** A stretch of the batch in arrival order [start, end) that is in block order, or in reverse. */
interface Stretch {
  start: number;
  end: number;
  descending: boolean;
}

/** A stretch's positions in block order. */
function inOrder(s: Stretch): number[] {
  const positions = range(s.start, s.end);
  return s.descending ? positions.reverse() : positions;
}

function stretchesOf(batch: BatchKeys): Stretch[] {
  const n = batch.keys.length;
  const stretches: Stretch[] = [];
  for (let start = 0; start < n; ) {
    let end = start + 1;
    const descending = end < n && !batch.jumpsAt(end) && batch.before(end, start);
    while (end < n && batch.before(end - 1, end) !== descending && !batch.jumpsAt(end)) end++;
    stretches.push({ start, end, descending });
    start = end;
  }
  return stretches;
}

/** The cluster whose range holds `key` (clusters sorted by their low end, disjoint), by bisection. */
function clusterHolding<C extends { low: string; high: string }>(clusters: readonly C[], key: string): C | undefined {
  let lo = 0;
  let hi = clusters.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compareC(key, clusters[mid].low) < 0) hi = mid - 1;
    else if (compareC(key, clusters[mid].high) > 0) lo = mid + 1;
    else return clusters[mid];
  }
  return undefined;
}

/**
 * How a batch's keys go into blocks: groups whose ranges do not overlap, each in block order, and
 * the positions of keys left out (for rows). Most batches are one group: a source read in key order
 * (one pass, no sort), or in no order at all (sorted). A source that merges streams each in order
 * (ClickHouse's parallel reads of a table) sends batches made of long ordered stretches far apart;
 * one group would span the keys between them, still to come, and every later batch would meet it.
 * A stretch ends where the order turns, and, for integer keys, where a key jumps far from the one
 * before (streams whose runs follow each other upwards look ordered). Long stretches (a block's
 * worth of keys or more) whose ranges overlap are one group, the others a group each; a key of a
 * short stretch joins the group whose range holds it, or is left out.
 */
export function keyGroups(keys: readonly string[]): { groups: KeyGroup[]; left: number[] } {
  const batch = new BatchKeys(keys);
  const stretches = stretchesOf(batch);
  if (stretches.length === 1) return { groups: [batch.group(inOrder(stretches[0]))], left: [] };
  const long = stretches.filter((s) => s.end - s.start >= BLOCK_KEYS);
  if (long.length === 0) return { groups: [batch.group(batch.sorted(range(0, keys.length)))], left: [] };
  // Long stretches as groups by their low end; overlapping ones merged into clusters.
  const own = long.map((s) => batch.group(inOrder(s)));
  own.sort((a, b) => compareC(a.low, b.low));
  const clusters: { low: string; high: string; members: KeyGroup[]; joined: number[] }[] = [];
  for (const g of own) {
    const last = clusters[clusters.length - 1];
    if (last && compareC(g.low, last.high) <= 0) {
      last.members.push(g);
      if (compareC(g.high, last.high) > 0) last.high = g.high;
    } else clusters.push({ low: g.low, high: g.high, members: [g], joined: [] });
  }
  const left: number[] = [];
  for (const s of stretches) {
    if (s.end - s.start >= BLOCK_KEYS) continue;
    for (let i = s.start; i < s.end; i++) {
      const home = clusterHolding(clusters, batch.blockKey(i));
      if (home) home.joined.push(i);
      else left.push(i);
    }
  }
  const groups = clusters.map((c) =>
    c.members.length === 1 && c.joined.length === 0 ? c.members[0] : batch.group(batch.sorted([...c.members.flatMap((g) => g.positions), ...c.joined])),
  );
  return { groups, left };
}

// Its map outlives the batches (keep-shape.ts).
keepShape(new BatchKeys(["1", "2"]));
