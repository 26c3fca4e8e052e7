import type { SyncAttributes } from "@/lib/api-client/types";

/** "Manual", "Every 30 minutes", "0 * * * * (Europe/Paris)". */
export function describeSchedule(s: Pick<SyncAttributes, "schedule_type" | "sync_interval" | "sync_interval_unit" | "cron_expression" | "timezone">): string {
  const cron = s.cron_expression?.trim();
  if (s.schedule_type === "manual") return "Manual";
  if (s.schedule_type === "cron_expression" || (s.schedule_type === "automated" && cron)) {
    return `Cron ${cron}${s.timezone && s.timezone !== "UTC" ? ` (${s.timezone})` : " (UTC)"}`;
  }
  if (s.sync_interval && s.sync_interval_unit) {
    const unit = s.sync_interval === 1 ? s.sync_interval_unit.replace(/s$/, "") : s.sync_interval_unit;
    return `Every ${s.sync_interval === 1 ? "" : `${s.sync_interval} `}${unit}`;
  }
  return s.schedule_type;
}
