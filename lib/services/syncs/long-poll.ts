// Long-polling a run or a sequence run (GET …?wait=N): re-read until it settles or N seconds pass,
// with at most LONG_POLL_MAX_PER_WORKSPACE waits of one workspace and LONG_POLL_MAX_PER_USER of one
// user (across all the workspaces they belong to) open at once in this process (429 past either). Polls with backoff (250 ms doubling to 2 s) rather than LISTEN/NOTIFY: each poll is
// one indexed read that borrows a pooled connection for a millisecond and returns it, so a waiting
// request holds no connection, and no listener has to be kept alive across web processes.
// `signal` ends the wait when the client goes.
import "server-only";
import { env } from "@/lib/settings/env";
import { RateLimited } from "@/lib/errors";

/** Open waits per workspace and per user in this process. */
const open = new Map<number, number>();
const openOfUser = new Map<number, number>();

/** Who waits: the workspace asked about, and the user (an API token's too) asking. */
export interface Waiter {
  workspaceId: number;
  userId: number;
}

const take = (counts: Map<number, number>, id: number) => counts.set(id, (counts.get(id) ?? 0) + 1);
function give(counts: Map<number, number>, id: number): void {
  const now = (counts.get(id) ?? 1) - 1;
  if (now <= 0) counts.delete(id);
  else counts.set(id, now);
}

/** Seconds a refused caller is told to wait: a run is re-read every 2 s, so slots free up often. */
const RETRY_AFTER_SECONDS = 5;

/**
 * `load()` once, then again with backoff until `settled` says so or `waitSeconds` pass. A wait of 0
 * is one read and takes no slot; any other takes one of the workspace's and one of the user's slots
 * while it lasts.
 */
export async function longPoll<T>(
  { workspaceId, userId }: Waiter,
  waitSeconds: number,
  load: () => Promise<T>,
  settled: (value: T) => boolean,
  signal?: AbortSignal,
): Promise<T> {
  // The first read also answers 404 for another workspace's id before any slot is counted.
  let value = await load();
  if (waitSeconds <= 0 || settled(value)) return value;
  const limit = env.LONG_POLL_MAX_PER_WORKSPACE;
  const held = open.get(workspaceId) ?? 0;
  if (held >= limit) {
    throw new RateLimited(
      `This workspace already has ${held} requests waiting with ?wait= (at most ${limit} at once, LONG_POLL_MAX_PER_WORKSPACE); try again in ${RETRY_AFTER_SECONDS} seconds, or ask with wait=0.`,
      { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
    );
  }
  const limitOfUser = env.LONG_POLL_MAX_PER_USER;
  const heldByUser = openOfUser.get(userId) ?? 0;
  if (heldByUser >= limitOfUser) {
    throw new RateLimited(
      `You already have ${heldByUser} requests waiting with ?wait= across your workspaces (at most ${limitOfUser} at once, LONG_POLL_MAX_PER_USER); try again in ${RETRY_AFTER_SECONDS} seconds, or ask with wait=0.`,
      { headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } },
    );
  }
  take(open, workspaceId);
  take(openOfUser, userId);
  try {
    const deadline = Date.now() + waitSeconds * 1000;
    let delay = 250;
    while (!settled(value) && !signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await sleep(Math.min(delay, left), signal);
      delay = Math.min(delay * 2, 2000);
      value = await load();
    }
    return value;
  } finally {
    give(open, workspaceId);
    give(openOfUser, userId);
  }
}

/** Waits of the workspace open in this process now. */
export function openLongPolls(workspaceId: number): number {
  return open.get(workspaceId) ?? 0;
}

/** Waits of the user open in this process now. */
export function openLongPollsOfUser(userId: number): number {
  return openOfUser.get(userId) ?? 0;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
