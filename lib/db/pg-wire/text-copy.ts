// COPY … FROM STDIN in text format: the cheapest way to put many rows into PostgreSQL, used for the
// engine's bookkeeping and by the PostgreSQL destination.
import type { ClientBase } from "pg";
import { keepShape } from "@/lib/runtime/keep-shape";
import { copyIn } from "./copy-in";

/** COPY's NULL marker. */
export const COPY_NULL = "\\N";

const COPY_SPECIAL = /[\\\t\n\r]/;

/** Escapes backslash, tab, newline and carriage return, the characters COPY text format reserves. */
export function copyEscape(value: string): string {
  if (!COPY_SPECIAL.test(value)) return value;
  return value.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
}

/**
 * Characters per piece. Not more: a string or Buffer past ~128 KB is allocated on pages of its own
 * (V8's large-object space, malloc's mmap), and 256 KB pieces cost the worker more than they saved.
 */
const PIECE_CHARS = 64 * 1024;

/**
 * COPY input built line by line in pieces of ~64 KB, sent as as many Buffers instead of one
 * multi-megabyte string (and Buffer) per batch.
 */
export class CopyInput {
  private readonly pieces: string[] = [];
  private current = "";

  push(line: string): void {
    this.current += line;
    if (this.current.length >= PIECE_CHARS) {
      this.pieces.push(this.current);
      this.current = "";
    }
  }

  /** Runs `COPY … FROM STDIN` with the lines pushed so far as its whole input. */
  async copy(client: ClientBase, sql: string): Promise<void> {
    if (this.current !== "") this.pieces.push(this.current);
    this.current = "";
    await copyIn(client, sql, this.pieces.map((piece) => Buffer.from(piece, "utf8")));
  }
}

const ESCAPED: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\" };

/**
 * One field of a COPY text line as its text; null for `\N`. COPY TO writes only the escapes above;
 * octal and hex escapes, which COPY FROM also accepts, are read too.
 */
export function copyUnescape(field: string): string | null {
  if (field === COPY_NULL) return null;
  if (!field.includes("\\")) return field;
  return field.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === "x" && e.length > 1) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ESCAPED[e] ?? e;
  });
}

// Its map outlives the batches (keep-shape.ts).
keepShape(new CopyInput());
