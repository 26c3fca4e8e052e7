// Alerts (docs/alerts.md): rules on sync runs, channels that hear about them, events of each change.
// lib/services/run-events.ts hangs them on the engine: alertsOnRunEnded on the run event bus (a run's
// end), queueAlertSweep on the scheduler's sweep, startAlertWork beside the worker; the API uses the
// CRUD functions.
export { alertsOnRunEnded, queueAlertSweep, startAlertWork, type AlertWork } from "./queue";
export {
  listAlertChannels,
  getAlertChannel,
  createAlertChannel,
  updateAlertChannel,
  deleteAlertChannel,
  withRecipientStates,
  type AlertChannelView,
} from "./channels";
export { confirmAlertSubscription, unsubscribeAlertSubscription, type RecipientState } from "./recipients";
export { listAlertRules, getAlertRule, createAlertRule, updateAlertRule, deleteAlertRule, type AlertRuleRow } from "./rules";
export { listAlertEvents, testAlertChannel, type ChannelTestResult } from "./events";
