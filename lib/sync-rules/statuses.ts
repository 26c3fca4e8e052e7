// Run statuses the console needs (which runs to poll, which badges pulse). Browser-safe: only a
// type comes from Prisma. lib/engine/transitions.ts owns the rules; statuses.test.ts keeps the two
// lists equal until the console can import the engine's one directly.
import type { SyncRunStatus } from "@/lib/generated/prisma/enums";

const ACTIVE: readonly SyncRunStatus[] = ["pending", "queued", "paused", "started", "querying", "in_progress", "needs_approval"];

/** Not finished yet: the console keeps polling a sync or run in one of these. */
export const ACTIVE_RUN_STATUSES: ReadonlySet<string> = new Set(ACTIVE);
