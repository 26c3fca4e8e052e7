// What the configuration kinds' handlers share (docs/config-as-code.md): a step (one change to
// make), what it runs with, and the helpers that turn a file's slugs into the workspace's ids.
import "server-only";
import type { FieldChange } from "@/lib/config-as-code/diff";
import type { ConfigKind } from "@/lib/validation/config";
import type { AuthContext } from "../accounts/auth-context";
import type { Matches, WorkspaceConfig } from "./state";
import type { Tx } from "../transaction";

type Auth = Pick<AuthContext, "workspaceId" | "user">;

/** What a step needs when it runs: the transaction, and the ids of every slug so far (creates add theirs). */
export interface StepContext {
  tx: Tx;
  auth: Auth;
  ids: Record<ConfigKind, Map<string, number>>;
  /**
   * Work for after the apply's transaction commits, in order (a live sync's first run reads the
   * committed sync; a run cannot be queued nor a slot dropped inside a transaction that may roll back).
   * Never run for a plan, nor for an apply that failed.
   */
  afterCommit: (() => Promise<void>)[];
}

/** One change to make: written by `run`, which returns the object's id. */
export interface Step {
  kind: ConfigKind;
  slug: string;
  /** The entry's index in the file (for error paths); -1 for a delete. */
  index: number;
  action: "create" | "update" | "delete";
  id: number | null;
  fields: FieldChange[];
  run(ctx: StepContext): Promise<number>;
  /**
   * Work that waits until every create and update ran (a sync's run_after may name a sync the file
   * creates later). All steps' first passes run, then all second passes; each gets the step's id.
   */
  passes?: (((ctx: StepContext, id: number) => Promise<void>) | undefined)[];
}

/** What a handler compares: an entry of the file (index) and the object of its slug, if any. */
export interface KindInput<E> {
  entries: readonly E[];
  state: WorkspaceConfig;
  /** The object each entry stands for (config-state.ts:matchEntries). */
  matches: Matches;
  secrets: Readonly<Record<string, string>>;
}

/** A slug of the file as the workspace's own slug of the object it stands for (so references compare). */
export const canonical = (matches: Matches, kind: ConfigKind, slug: string): string => matches[kind].get(slug)?.slug ?? slug;

export const idOf = (ctx: StepContext, kind: ConfigKind, slug: string): number => {
  const id = ctx.ids[kind].get(slug);
  // Checked when the plan is made (config.ts:referenceErrors): a step runs only once what it points at exists.
  if (id === undefined) throw new Error(`No ${kind} has the slug "${slug}".`);
  return id;
};

export const orEmpty = <T>(value: T | null | undefined, empty: T): T => value ?? empty;

/** The members of `obj` named in `keys`. */
export function pick<T extends object>(obj: T, keys: ReadonlySet<string>): Partial<T> {
  const out: Partial<T> = {};
  for (const k of Object.keys(obj) as (keyof T)[]) if (keys.has(String(k))) out[k] = obj[k];
  return out;
}

/** A list of slugs as a set: sorted, without repeats (the order of run_after and channels means nothing). */
export const slugSet = (slugs: readonly string[]): string[] => [...new Set(slugs)].sort();
