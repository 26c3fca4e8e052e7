// Answers of read routes remembered for as long as the database has not changed. Every
// authenticated request reads its caller's identity fresh, in one statement that also returns the
// database snapshot it saw (lib/services/accounts/auth-context.ts). Two equal snapshots mean no transaction
// committed or aborted in between (a snapshot is the oldest running transaction, the newest finished
// one and those running between; any transaction that ends changes it, and it never returns to an
// earlier value), so an answer computed after a request saw snapshot S is still exact for any later
// request that sees S again. A snapshot says nothing about the clock, so only answers that depend on
// the database and the request alone may be remembered (`remember` in lib/http/handler.ts).
//
// Measured (bench/README.md, 2026-11-29 b): computed, a page of 25 syncs cost the web process 1.5–2.0×
// the CPU of a health check; remembered, it costs the caller's lookup and the write of the answer (0.9×).
import type { AuthContext } from "@/lib/services/accounts/auth-context";

/** Answers kept at most: pages a handful of clients are looking at, not a copy of the database. */
const MAX_ENTRIES = 512;
/** Answers larger than this are not kept (a page of 100 records with big rows). */
const MAX_ENTRY_CHARS = 1 << 20;
/** The sum of the kept answers' lengths, in UTF-16 units (~2 bytes each). */
const MAX_TOTAL_CHARS = 16 << 20;

interface Entry {
  snapshot: string;
  status: number;
  body: string;
}

const entries = new Map<string, Entry>();
let totalChars = 0;
/** The newest snapshot seen: entries of an older one can never be valid again, so they go. */
let current = "";

function drop(key: string, entry: Entry): void {
  entries.delete(key);
  totalChars -= key.length + entry.body.length;
}

/**
 * Everything the answer may depend on besides the database: who asks (user, workspace, role and
 * its permissions, the API token and its own role) and the request as addressed (operation, host,
 * path and query). Two requests with the same key and snapshot get the same answer.
 */
export function rememberKey(operation: string, auth: AuthContext, url: URL): string {
  return JSON.stringify([
    operation,
    auth.user.id,
    auth.workspaceId,
    auth.roleId,
    auth.policies,
    auth.tokenKind,
    auth.apiToken?.id ?? null,
    auth.apiToken?.roleId ?? null,
    url.href,
  ]);
}

/** The answer kept for `key` under exactly this snapshot, if any. */
export function recall(key: string, snapshot: string): Entry | undefined {
  if (!snapshot) return undefined;
  if (snapshot !== current) {
    // A changed database: every entry is dead. Compared as text, so "newer" is only a guess, but a
    // wrong guess only costs a recomputation.
    current = snapshot;
    entries.clear();
    totalChars = 0;
    return undefined;
  }
  const entry = entries.get(key);
  if (!entry || entry.snapshot !== snapshot) return undefined;
  // Most recently used last: eviction takes the first.
  entries.delete(key);
  entries.set(key, entry);
  return entry;
}

/** Keeps an answer computed after its request saw `snapshot`. */
export function remember(key: string, snapshot: string, status: number, body: string): void {
  if (!snapshot || snapshot !== current || body.length > MAX_ENTRY_CHARS) return;
  const old = entries.get(key);
  if (old) drop(key, old);
  entries.set(key, { snapshot, status, body });
  // The key counts too: it holds the URL (up to the header limit) and the caller's permissions.
  totalChars += key.length + body.length;
  for (const [k, e] of entries) {
    if (entries.size <= MAX_ENTRIES && totalChars <= MAX_TOTAL_CHARS) break;
    drop(k, e);
  }
}

/** How many answers are kept (tests). */
export function rememberedCount(): number {
  return entries.size;
}
