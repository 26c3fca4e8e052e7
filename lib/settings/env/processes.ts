// Which processes run the worker and scheduler, and the demo. Part of envSchema (lib/settings/env.ts),
// in its order: the README lists them so.
import { integer, flag } from "./kinds";

export const processVariables = {
  // Processes
  RUN_WORKER: flag(true, "`0` = `npm start` serves web only (no sync worker in this process)"),
  WORKER_SCHEDULER: flag(
    true,
    "`0` = `npm run worker` runs no scheduler (it only acts in the one process holding its lock anyway)",
  ),
  WORKER_CONCURRENCY: integer(1, 2, "runs one worker process executes at a time"),
  DEMO: flag(false, "`1` = create the demo at start"),
};
