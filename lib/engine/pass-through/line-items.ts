// A pass-through batch's items: a LineItem per line to send, or, for a first sync's batch (every
// kept line an insert), the batch as columns (batch.ts, ItemColumns) with no object per line.
import "server-only";
import type { LineBatch } from "@/lib/db/pg-wire/line-batch";
import type { Row } from "@/lib/connectors/types";
import type { SyncRecordAction } from "@/lib/generated/prisma/enums";
import type { Item, ItemColumns } from "../batch";
import type { Digests, DigestSource } from "../fingerprints";

/**
 * A line's Item whose fingerprint stays its batch's digest: hex only if something reads it, and a
 * first sync's state blocks copy the 16 bytes (a million hex strings made and parsed back, before).
 * The line stays in its batch (held as bytes there, line-batch.ts): a string only if something reads it.
 */
export class LineItem implements Item, DigestSource {
  row?: Row;
  constructor(
    readonly key: string,
    readonly lines: LineBatch,
    readonly lineIndex: number,
    // The write mode may change it (send-batch.ts).
    public action: SyncRecordAction,
    private readonly digests: Digests,
    private readonly digestIndex: number,
  ) {}

  get line(): string {
    return this.lines.line(this.lineIndex);
  }

  get fingerprint(): string {
    return this.digests.hex(this.digestIndex);
  }

  digestInto(buf: Buffer, at: number): void {
    this.digests.copy(this.digestIndex, buf, at);
  }

  /** Settles once the fingerprint is computed. */
  get ready(): Promise<void> {
    return this.digests.ready;
  }
}

/** A first sync's batch: line kept[i] of `lines` is sent as an insert under keys[i], its fingerprint digest i. */
export class InsertedLines implements ItemColumns {
  readonly action: SyncRecordAction = "destination_insert";
  private objects: LineItem[] | undefined;

  constructor(
    readonly keys: readonly string[],
    readonly lines: LineBatch,
    readonly kept: Int32Array,
    readonly digests: Digests,
  ) {}

  get length(): number {
    return this.keys.length;
  }

  items(): LineItem[] {
    this.objects ??= this.keys.map((key, k) => new LineItem(key, this.lines, this.kept[k], this.action, this.digests, k));
    return this.objects;
  }
}
