// A live sync's status in the API's snake_case (./live-status.schema.ts).
import type { LiveStatus } from "@/lib/services/syncs/live-status";
import type { LiveStatusBody } from "./live-status.schema";

export const serializeLiveStatus = (s: LiveStatus): LiveStatusBody => ({
  sync_id: s.syncId,
  state: s.state,
  slot: s.slot,
  lag: { bytes: s.lag.bytes, seconds: s.lag.seconds, measured_at: s.lag.measuredAt.toISOString(), error: s.lag.error },
  throughput: s.throughput && {
    run_id: s.throughput.runId,
    changes: s.throughput.changes,
    seconds: s.throughput.seconds,
    changes_per_second: s.throughput.changesPerSecond,
  },
  run: s.run,
});
