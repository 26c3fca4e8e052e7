// The alert kinds of a configuration file (docs/config-as-code.md): alert channels and alert rules,
// compared with the workspace's and written through the alert services in the apply's transaction.
// A Slack channel's URL is a secret: export writes a ${env:NAME} reference, plan shows a change
// without values, and apply takes the value from the request's secrets (a channel that exists keeps
// its stored URL when none is sent).
import "server-only";
import { changedFields, createdFields } from "@/lib/config-as-code/diff";
import { secretRefName } from "@/lib/config-as-code/secret-refs";
import { SECRET_MASK } from "@/lib/connectors/registry";
import { ValidationFailed, type FieldError } from "@/lib/errors";
import type { ConfigAlertChannel, ConfigAlertRule } from "@/lib/validation/config";
import { channelConfig, createAlertChannel, updateAlertChannel, urlIsSecret } from "../notifications/alerts/channels";
import { createAlertRule, updateAlertRule } from "../notifications/alerts/rules";
import { canonical, idOf, pick, slugSet, type KindInput, type Step, type StepContext } from "./step";

/** Alert channels: a referenced URL resolved from the request's secrets, compared with the stored one. */
export function alertChannelSteps({ entries, matches, secrets }: KindInput<ConfigAlertChannel>): Step[] {
  const problems: FieldError[] = [];
  const steps = entries.flatMap((entry, index): Step[] => {
    const known = matches.alert_channels.get(entry.slug);
    const refName = secretRefName(entry.url);
    const resolved = refName === undefined ? entry.url : secrets[refName];
    if (refName !== undefined && resolved === undefined && !known) {
      problems.push({
        path: `alert_channels.${index}.url`,
        message: `(alert channel "${entry.slug}") refers to \${env:${refName}}, but the request's secrets carry no value for it; the CLI sends it when the name starts with DATASYNC_SECRET_ or is listed in --allow-env`,
      });
      return [];
    }
    const secret = (path: string) => path === "url" && (refName !== undefined || urlIsSecret(entry.channel_type));
    const desired = {
      name: entry.name,
      channel_type: entry.channel_type,
      ...(entry.recipients ? { recipients: entry.recipients.map((r) => r.toLowerCase()) } : {}),
      ...(entry.url ? { url: resolved } : {}),
    };
    if (!known) {
      return [
        {
          kind: "alert_channels",
          slug: entry.slug,
          index,
          action: "create",
          id: null,
          fields: createdFields(desired, { secret }),
          run: async (ctx) => (await createAlertChannel(ctx.auth, desired, ctx.tx)).id,
        },
      ];
    }
    const stored = channelConfig(known.row);
    const current = { name: known.row.name, channel_type: known.row.channelType, recipients: stored.recipients, url: stored.url };
    // A reference without a value keeps the stored URL, as the mask does in the API.
    const fields = changedFields(current, { ...desired, url: desired.url ?? (entry.url ? stored.url : undefined) }, { secret });
    if (fields.length === 0) return [];
    const input = pick({ ...desired, url: desired.url ?? SECRET_MASK }, new Set(fields.map((f) => f.field)));
    return [
      {
        kind: "alert_channels",
        slug: entry.slug,
        index,
        action: "update",
        id: known.id,
        fields,
        run: async (ctx) => (await updateAlertChannel(ctx.auth, known.id, input, ctx.tx)).id,
      },
    ];
  });
  if (problems.length > 0) throw ValidationFailed.fromFields(problems);
  return steps;
}

/** Alert rules: the sync and the channels by slug; channels compare as a set. */
export function alertRuleSteps({ entries, matches }: KindInput<ConfigAlertRule>): Step[] {
  return entries.flatMap((entry, index): Step[] => {
    const known = matches.alert_rules.get(entry.slug);
    const { slug: _slug, sync, channels, ...rest } = entry;
    const toIds = (ctx: StepContext, d: { sync?: string | null; channels?: string[] }) => ({
      ...(d.sync !== undefined ? { sync_id: d.sync === null ? null : idOf(ctx, "syncs", d.sync) } : {}),
      ...(d.channels !== undefined ? { channel_ids: d.channels.map((c) => idOf(ctx, "alert_channels", c)) } : {}),
    });
    if (!known) {
      const desired = { ...rest, sync: sync ?? null, channels };
      return [
        {
          kind: "alert_rules",
          slug: entry.slug,
          index,
          action: "create",
          id: null,
          fields: createdFields(desired),
          run: async (ctx) => (await createAlertRule(ctx.auth, { ...rest, sync_id: null, channel_ids: [], ...toIds(ctx, desired) }, ctx.tx)).id,
        },
      ];
    }
    const wanted = slugSet(channels.map((c) => canonical(matches, "alert_channels", c)));
    // The same channels in another order are no change.
    const sameChannels = wanted.join(",") === slugSet(known.entry.channels).join(",");
    const desired = {
      ...rest,
      ...(sync !== undefined ? { sync: sync === null ? null : canonical(matches, "syncs", sync) } : {}),
      channels: sameChannels ? known.entry.channels : wanted,
    };
    const fields = changedFields(known.entry, desired);
    if (fields.length === 0) return [];
    const changed = new Set(fields.map((f) => f.field));
    // The file's slugs (not the canonical ones) are what ctx.ids knows for entries created by the file.
    const fileRefs = pick({ sync, channels }, changed);
    const input = pick(rest, changed);
    return [
      {
        kind: "alert_rules",
        slug: entry.slug,
        index,
        action: "update",
        id: known.id,
        fields,
        run: async (ctx) => (await updateAlertRule(ctx.auth, known.id, { ...input, ...toIds(ctx, fileRefs) }, ctx.tx)).id,
      },
    ];
  });
}
