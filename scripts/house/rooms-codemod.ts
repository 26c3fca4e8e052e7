// Rooms by capability (issue 38 item 4): lib/services grouped by what it serves, the two lib
// folders once both called "config" given names that say what they hold, outbound HTTP in lib/net.
// Re-runnable on purpose: branches merged after it still import the old paths, so running it again moves what is left and
// rewrites their imports; on a tree already moved it changes nothing.
//
//   npx tsx scripts/house/rooms-codemod.ts          (from the repository root)
//
// Order: every text is rewritten where it stands (its relative imports resolved from where it is
// now, written for where it will be), then the files move (git mv when tracked).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A module (a path without extension: takes `name.ts`, `name.test.ts`, `name.property.test.ts`…) or a folder (all it holds). */
type Move = readonly [kind: "module" | "folder", from: string, to: string];

const S = "lib/services";
const room = (name: string, modules: Record<string, string>): Move[] =>
  Object.entries(modules).map(([from, to]) => ["module", `${S}/${from}`, `${S}/${name}/${to}`] as const);

export const MOVES: readonly Move[] = [
  ["folder", "lib/config", "lib/settings"],
  ["folder", "lib/sync-config", "lib/sync-rules"],
  ["folder", `${S}/alerts`, `${S}/notifications/alerts`],
  ...room("accounts", {
    "account-mails": "mails",
    "account-recovery": "recovery",
    "account-throttle": "account-throttle",
    accounts: "accounts",
    "api-tokens": "api-tokens",
    "auth-context": "auth-context",
    auth: "auth",
    "forgot-password": "forgot-password",
    invitations: "invitations",
    "link-tokens": "link-tokens",
    "login-throttle": "login-throttle",
    "mail-caps": "mail-caps",
    members: "members",
    roles: "roles",
    setup: "setup",
    "sign-in-failure": "sign-in-failure",
    workspaces: "workspaces",
  }),
  ...room("config-as-code", {
    config: "config",
    "config-alerts": "alerts",
    "config-kinds": "kinds",
    "config-run-after": "run-after",
    "config-state": "state",
    "config-step": "step",
  }),
  ...room("syncs", {
    syncs: "syncs",
    "sync-fields": "fields",
    "sync-proposal": "proposal",
    "sync-record-detail": "record-detail",
    "sync-records-export": "records-export",
    "sync-records": "records",
    "sync-runs-wait": "runs-wait",
    "sync-runs": "runs",
    "sync-view": "view",
    "sync-live": "live",
    "sync-write-mode": "write-mode",
    "run-after": "run-after",
    "sequence-runs": "sequence-runs",
    sequences: "sequences",
    "undelivered-records": "undelivered-records",
    "record-redaction": "record-redaction",
    "trigger-keys": "trigger-keys",
    "long-poll": "long-poll",
  }),
  ...room("catalogue", {
    connectors: "connectors",
    "connector-definitions": "connector-definitions",
    "connector-deadline": "connector-deadline",
    "connector-secrets": "connector-secrets",
    "credential-mask": "credential-mask",
    models: "models",
    "model-columns": "model-columns",
    catalogs: "catalogs",
    deletion: "deletion",
  }),
  ...room("notifications", { "webhook-subscriptions": "webhook-subscriptions" }),
  ...room("insights", { health: "health", metrics: "metrics", reports: "reports", audit: "audit" }),
  // Outbound network in one home (lib/net): the guard every tenant-directed connection passes, and
  // the one HTTP client connectors, webhooks and alerts send through.
  ["module", "lib/connectors/net-policy", "lib/net/policy"],
  ["module", "lib/connectors/app-database", "lib/net/app-database"],
  ["module", "lib/connectors/shared/http", "lib/net/http"],
  ["module", "lib/connectors/shared/retry-after", "lib/net/retry-after"],
];

/** Flat files lib/services keeps: helpers every room uses, and the process-start wiring of run events. */
export const SHARED_SERVICE_FILES = ["transaction", "unique-names", "run-events"] as const;

const CODE_ROOTS = ["app", "components", "lib", "scripts", "bench", "tests", "e2e", "lint", "prisma"];
const CODE_EXT = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
// The codemod itself is skipped: its table names the old paths on purpose.
const SKIP = [/^scripts\/house\/rooms-codemod\.ts$/, /^node_modules\//, /^lib\/generated\//, /^lib\/api-client\/generated\//, /^\.next/];
const ROOT_FILES = ["package.json", "tsconfig.json", "tsconfig.node.json"];

/**
 * Where `p` (repository-relative, with or without extension) goes, or null when no move covers it.
 * `stemMayEnd` says what may follow a module's stem: "." plus an extension always; the end of the text
 * only where that end is an import specifier's (after the move a bare `lib/services/syncs` would name a room).
 */
export function mapPath(p: string, stemMayEnd = true): string | null {
  for (const [kind, from, to] of MOVES) {
    if (kind === "folder") {
      if (p === from || p.startsWith(`${from}/`)) return to + p.slice(from.length);
    } else if ((p === from && stemMayEnd) || new RegExp(`^${escape(from)}\\.[A-Za-z]`).test(p)) {
      return to + p.slice(from.length);
    }
  }
  return null;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Relative specifiers of imports, dynamic imports, re-exports, requires and vitest's module mocks. */
const RELATIVE_SPEC =
  /((?:\bfrom|\bimport|\brequire|\bvi\.(?:mock|doMock|unmock|doUnmock|importActual|importMock))\s*(?:<[^>]*>)?\s*\(?\s*)(["'])(\.\.?\/[^"'\n]*)\2/g;
/** A path mention starting at lib/ (in `@/lib/…`, `../lib/…`, prose, lint zones); the character after it decides a bare module stem. */
const LIB_MENTION = /(?<![\w-]|[\w-]\/)lib\/[\w@.[\]()\/-]*[\w\])]/g;
/** A path in a column (README's and architecture.md's layer lists): its padding keeps the next column where it was. */
const PADDED = / {2,}$/;

const PAD_MARK = "\u0001";
const PAD_CUT = "\u0002";

export function rewrite(file: string, text: string): string {
  const dest = mapPath(file) ?? file;
  const isCode = CODE_EXT.test(file);
  let out = text;
  if (isCode) {
    out = out.replace(RELATIVE_SPEC, (all, lead: string, q: string, spec: string) => {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const moved = mapPath(target);
      if (!moved && dest === file) return all;
      let rel = path.posix.relative(path.posix.dirname(dest), moved ?? target);
      if (!rel.startsWith(".")) rel = `./${rel}`;
      if (spec.endsWith("/") && !rel.endsWith("/")) rel += "/";
      return `${lead}${q}${rel}${q}`;
    });
  }
  return out.replace(LIB_MENTION, (mention: string, offset: number, whole: string) => {
    const next = whole[offset + mention.length] ?? "";
    // A sentence's full stop is not an extension: "lib/services/syncs." keeps its meaning.
    const trimmed = mention.replace(/\.$/, "");
    const stemMayEnd = isCode && /["'`]/.test(next);
    const mapped = mapPath(trimmed, stemMayEnd);
    return mapped ? mapped + mention.slice(trimmed.length) + PAD_MARK.repeat(Math.max(0, mention.length - mapped.length)) + PAD_CUT.repeat(Math.max(0, mapped.length - mention.length)) : mention;
  }).replace(/([\u0001\u0002]+)( *)/g, (_all, marks: string, spaces: string) => {
    if (!PADDED.test(spaces)) return spaces;
    const grow = [...marks].filter((m) => m === PAD_MARK).length - [...marks].filter((m) => m === PAD_CUT).length;
    return " ".repeat(Math.max(2, spaces.length + grow));
  });
}

function git(...args: string[]): string {
  return execFileSync("git", args, { encoding: "utf8" });
}

function candidates(): string[] {
  const listed = `${git("ls-files", "-z")}${git("ls-files", "-z", "--others", "--exclude-standard")}`.split("\0").filter(Boolean);
  return [...new Set(listed)]
    .filter((f) => existsSync(f) && !SKIP.some((re) => re.test(f)))
    .filter((f) => (CODE_EXT.test(f) && (CODE_ROOTS.includes(f.split("/")[0]) || !f.includes("/"))) || f.endsWith(".md") || ROOT_FILES.includes(f));
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((e) => {
    const p = `${dir}/${e}`;
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** What each move finds on disk now: the files of a folder, or a module's files beside its stem. */
function movableFiles(): string[] {
  return MOVES.flatMap(([kind, from]) => {
    if (kind === "folder") return filesUnder(from);
    const dir = path.posix.dirname(from);
    const base = path.posix.basename(from);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((e) => e.startsWith(`${base}.`) && statSync(`${dir}/${e}`).isFile())
      .map((e) => `${dir}/${e}`);
  });
}

function removeEmptyDirs(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
  for (const e of readdirSync(dir)) removeEmptyDirs(`${dir}/${e}`);
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}

function main(): void {
  if (!existsSync("lib/services") || !existsSync("package.json")) throw new Error("run from the repository root");
  const tracked = new Set(git("ls-files", "-z").split("\0").filter(Boolean));

  let rewritten = 0;
  for (const file of candidates()) {
    const text = readFileSync(file, "utf8");
    const next = rewrite(file, text);
    if (next !== text) {
      writeFileSync(file, next);
      rewritten++;
      console.log(`rewrote ${file}`);
    }
  }

  let moved = 0;
  for (const file of movableFiles()) {
    const dest = mapPath(file)!;
    if (existsSync(dest)) {
      console.warn(`SKIPPED ${file}: ${dest} exists`);
      continue;
    }
    mkdirSync(path.posix.dirname(dest), { recursive: true });
    if (tracked.has(file)) git("mv", file, dest);
    else renameSync(file, dest);
    moved++;
    console.log(`moved ${file} -> ${dest}`);
  }
  for (const [kind, from] of MOVES) if (kind === "folder") removeEmptyDirs(from);

  const flat = readdirSync(S).filter((e) => statSync(`${S}/${e}`).isFile());
  const left = flat.filter((e) => !SHARED_SERVICE_FILES.some((s) => e.startsWith(`${s}.`)));
  console.log(`\n${moved} files moved, ${rewritten} files rewritten.`);
  console.log(`Flat in ${S}: ${flat.length} (${flat.length - left.length} shared by design).`);
  if (left.length) console.log(`Left flat, not in the move table (give each a room):\n  ${left.join("\n  ")}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
