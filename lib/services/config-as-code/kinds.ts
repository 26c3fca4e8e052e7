// One handler per configuration kind (docs/config-as-code.md): how an entry of the file compares
// with the workspace's object of its slug, and which service call creates, updates or deletes it.
// The writes are the resources' own services, in the apply's transaction, so every rule (and every
// audit row) of the API applies unchanged. A new kind is one more handler here (the alert kinds:
// ./config-alerts.ts), listed in KIND_HANDLERS in CONFIG_KINDS order.
import "server-only";
import { changedFields, createdFields, sameJson } from "@/lib/config-as-code/diff";
import { resolveSecretRefs, secretRefs } from "@/lib/config-as-code/secret-refs";
import { getDefinition, mergeMaskedSecrets, SECRET_MASK, secretPaths } from "@/lib/connectors/registry";
import type { Row } from "@/lib/connectors/types";
import { decryptJson } from "@/lib/crypto/encryption";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { ValidationFailed, type FieldError } from "@/lib/errors";
import type { ConfigConnector, ConfigKind, ConfigModel, ConfigSync } from "@/lib/validation/config";
import { audit } from "../insights/audit";
import { buildCatalogJson, saveCatalog } from "../catalogue/catalogs";
import type { Known } from "./state";
import { createConnector, deleteUnusedConnector, updateConnector } from "../catalogue/connectors";
import { createModel, deleteUnusedModel, updateModel } from "../catalogue/models";
import { deleteAlertChannel } from "../notifications/alerts/channels";
import { deleteAlertRule } from "../notifications/alerts/rules";
import { alertChannelSteps, alertRuleSteps } from "./alerts";
import { runAfterChange } from "./run-after";
import { canonical, idOf, orEmpty, pick, type KindInput, type Step, type StepContext } from "./step";
import { createSync, deleteSync, liveAfterCommit, releaseAfterDelete, updateSync } from "../syncs/syncs";
import type { Tx } from "../transaction";

export type { Step, StepContext } from "./step";

type Auth = StepContext["auth"];

/** Null where the API stores an empty value, so a file's null and the workspace's "" compare equal. */
function normalizeModel(e: ConfigModel): Omit<ConfigModel, "slug"> {
  const { slug: _slug, ...rest } = e;
  return { ...rest, description: orEmpty(e.description, ""), configuration: orEmpty(e.configuration, {}) };
}

function normalizeSync(e: ConfigSync): Omit<ConfigSync, "slug" | "run_after"> {
  const { slug: _slug, run_after: _runAfter, ...rest } = e;
  return {
    ...rest,
    name: orEmpty(e.name, ""),
    description: orEmpty(e.description, ""),
    configuration: orEmpty(e.configuration, []),
    ...(e.cursor_field !== undefined ? { cursor_field: e.cursor_field || null } : {}),
  };
}

/** Connectors: configuration compared leaf by leaf with secrets resolved; the catalog as a whole. */
function connectorSteps({ entries, state, matches, secrets }: KindInput<ConfigConnector>): Step[] {
  const steps: Step[] = [];
  const problems: FieldError[] = [];
  entries.forEach((entry, index) => {
    const known = matches.connectors.get(entry.slug);
    const refPaths = new Set(secretRefs(entry.configuration).map((r) => `configuration.${r.path}`));
    const { value, missing } = resolveSecretRefs(entry.configuration, secrets, SECRET_MASK);
    const configuration = value as Row;
    const definition = getDefinition(entry.connector_name, entry.connector_type);
    const secretSet = new Set((definition ? secretPaths(definition) : []).map((p) => `configuration.${p}`));
    const secret = (path: string) => refPaths.has(path) || [...secretSet].some((p) => path === p || path.startsWith(`${p}.`));
    const inSecret = (path: string) => [...secretSet].some((p) => `configuration.${path}` === p || `configuration.${path}`.startsWith(`${p}.`));
    // A new connector has no stored secret to keep: every reference needs its value. An existing one
    // keeps its stored secret where a value is not sent, and only there.
    for (const m of missing) {
      if (!known || !inSecret(m.path)) {
        problems.push({
          path: `connectors.${index}.configuration.${m.path}`,
          message: `(connector "${entry.slug}") refers to \${env:${m.name}}, but the request's secrets carry no value for it; the CLI sends it when the name starts with DATASYNC_SECRET_ or is listed in --allow-env`,
        });
      }
    }
    if (!known) {
      const { slug: _slug, catalog, ...input } = entry;
      steps.push({
        kind: "connectors",
        slug: entry.slug,
        index,
        action: "create",
        id: null,
        fields: createdFields({ ...input, configuration: entry.configuration, ...(catalog ? { catalog } : {}) }, { nested: ["configuration"], secret }),
        async run({ tx, auth }) {
          const created = await createConnector(auth, { ...input, configuration }, tx);
          if (catalog) await writeCatalog(tx, auth, created.id, created.name, catalog, undefined);
          return created.id;
        },
      });
      return;
    }
    const stored = decryptJson(jsonObjectSchema, known.row.configurationEncrypted, `configuration of connector ${known.id}`);
    let merged: Row = configuration;
    try {
      merged = definition ? mergeMaskedSecrets(configuration, stored, definition) : configuration;
    } catch {
      // A kept secret for a new target: the update refuses it with its own sentence.
    }
    const { slug: _slug, catalog, configuration: _configuration, ...rest } = entry;
    // An alias (Salesforce) is the definition's name (SalesforceCrm): not a change.
    const plain = { ...rest, ...(definition ? { connector_name: definition.name } : {}), ...(rest.description !== undefined ? { description: orEmpty(rest.description, "") } : {}) };
    const fields = [
      ...changedFields(known.entry, plain),
      ...changedFields({ configuration: stored }, { configuration: merged }, { nested: ["configuration"], secret }),
    ];
    const previous = state.catalogs.get(known.id);
    const catalogChanged = catalog !== undefined && !sameJson(buildCatalogJson(catalog, entry.name, previous), previous);
    if (catalogChanged) fields.push({ field: "catalog" });
    if (fields.length === 0) return;
    const changed = new Set(fields.map((f) => f.field.split(".")[0]));
    steps.push({
      kind: "connectors",
      slug: entry.slug,
      index,
      action: "update",
      id: known.id,
      fields,
      async run({ tx, auth }) {
        const input = pick({ ...plain, configuration }, changed);
        const updated = Object.keys(input).length > 0 ? await updateConnector(auth, known.id, input, tx) : known.row;
        if (catalogChanged && catalog) await writeCatalog(tx, auth, known.id, updated.name, catalog, previous);
        return known.id;
      },
    });
  });
  if (problems.length > 0) throw ValidationFailed.fromFields(problems);
  return steps;
}

async function writeCatalog(
  tx: Tx,
  auth: Auth,
  connectorId: number,
  name: string,
  body: NonNullable<ConfigConnector["catalog"]>,
  previous: Parameters<typeof buildCatalogJson>[2],
): Promise<void> {
  const { catalog, created } = await saveCatalog(auth.workspaceId, connectorId, buildCatalogJson(body, name, previous), tx);
  await audit(auth, created ? "create" : "update", "catalog", catalog.id, { connector_id: connectorId }, tx);
}

function modelSteps({ entries, matches }: KindInput<ConfigModel>): Step[] {
  return entries.flatMap((entry, index): Step[] => {
    const known = matches.models.get(entry.slug);
    const desired = normalizeModel(entry);
    const toInput = (ctx: StepContext, d: Partial<typeof desired>) => {
      const { connector, ...rest } = d;
      return { ...rest, ...(connector !== undefined ? { connector_id: idOf(ctx, "connectors", connector) } : {}) };
    };
    if (!known) {
      return [
        {
          kind: "models",
          slug: entry.slug,
          index,
          action: "create",
          id: null,
          fields: createdFields(desired),
          run: async (ctx) => {
            const { connector, ...rest } = desired;
            return (await createModel(ctx.auth, { ...rest, connector_id: idOf(ctx, "connectors", connector) }, ctx.tx)).id;
          },
        },
      ];
    }
    const fields = changedFields(known.entry, { ...desired, connector: canonical(matches, "connectors", desired.connector) });
    if (fields.length === 0) return [];
    const changed = pick(desired, new Set(fields.map((f) => f.field)));
    return [
      {
        kind: "models",
        slug: entry.slug,
        index,
        action: "update",
        id: known.id,
        fields,
        run: async (ctx) => (await updateModel(ctx.auth, known.id, { primary_key: undefined, ...toInput(ctx, changed) }, ctx.tx)).id,
      },
    ];
  });
}

const SCHEDULE_FIELDS = ["schedule_type", "sync_interval", "sync_interval_unit", "cron_expression", "timezone"] as const;

function syncSteps({ entries, matches, state }: KindInput<ConfigSync>): Step[] {
  return entries.flatMap((entry, index): Step[] => {
    const known = matches.syncs.get(entry.slug);
    const desired = normalizeSync(entry);
    const runAfter = runAfterChange(entry, known, matches, state);
    const toInput = (ctx: StepContext, d: Partial<typeof desired>) => {
      const { source, destination, model, ...rest } = d;
      return {
        ...rest,
        ...(source !== undefined ? { source_id: idOf(ctx, "connectors", source) } : {}),
        ...(destination !== undefined ? { destination_id: idOf(ctx, "connectors", destination) } : {}),
        ...(model !== undefined ? { model_id: idOf(ctx, "models", model) } : {}),
      };
    };
    if (!known) {
      return [
        {
          kind: "syncs",
          slug: entry.slug,
          index,
          action: "create",
          id: null,
          fields: [...createdFields(desired), ...runAfter.fields],
          passes: runAfter.passes,
          run: async (ctx) => {
            const { source, destination, model, ...rest } = desired;
            const input = {
              ...rest,
              source_id: idOf(ctx, "connectors", source),
              destination_id: idOf(ctx, "connectors", destination),
              model_id: idOf(ctx, "models", model),
            };
            const view = await createSync(ctx.auth, input, ctx.tx);
            // Created live: started as the API starts it, once the apply commits.
            if (view.live) ctx.afterCommit.push(() => liveAfterCommit(ctx.auth.workspaceId, view.id, false, true));
            return view.id;
          },
        },
      ];
    }
    const fields = changedFields(known.entry, {
      ...desired,
      source: canonical(matches, "connectors", desired.source),
      destination: canonical(matches, "connectors", desired.destination),
      model: canonical(matches, "models", desired.model),
    });
    if (fields.length === 0 && runAfter.fields.length === 0) return [];
    const names = new Set<string>(fields.map((f) => f.field));
    // The schedule rules apply to the whole schedule: a change to one field sends them all.
    if (SCHEDULE_FIELDS.some((k) => names.has(k))) for (const k of SCHEDULE_FIELDS) names.add(k);
    const changed = pick(desired, names);
    return [
      {
        kind: "syncs",
        slug: entry.slug,
        index,
        action: "update",
        id: known.id,
        fields: [...fields, ...runAfter.fields],
        passes: runAfter.passes,
        run: async (ctx) => {
          if (fields.length === 0) return known.id;
          const view = await updateSync(ctx.auth, known.id, toInput(ctx, changed), ctx.tx);
          // Live turned on or off: started, or its slot dropped once its run stopped, as the API does, once the apply commits.
          const wasLive = known.entry.live === true;
          if (view.live !== wasLive) ctx.afterCommit.push(() => liveAfterCommit(ctx.auth.workspaceId, view.id, wasLive, view.live));
          return view.id;
        },
      },
    ];
  });
}

/** Deletes of the objects of a kind the file lists that no entry stands for (prune: true only). */
export function deleteSteps(kind: ConfigKind, known: readonly Known<{ id: number }, unknown>[], matched: ReadonlySet<number>): Step[] {
  const remove = { connectors: deleteUnusedConnector, models: deleteUnusedModel, syncs: deleteSync, alert_channels: deleteAlertChannel, alert_rules: deleteAlertRule }[kind];
  return known
    .filter((k) => !matched.has(k.id))
    .map((k) => ({
      kind,
      slug: k.slug,
      index: -1,
      action: "delete" as const,
      id: k.id,
      fields: [],
      run: async (ctx: StepContext) => {
        await remove(ctx.auth, k.id, ctx.tx);
        // A live sync's slot (the release does nothing for a sync that never streamed).
        if (kind === "syncs") ctx.afterCommit.push(async () => releaseAfterDelete(k.id));
        return k.id;
      },
    }));
}

export const KIND_HANDLERS = {
  connectors: connectorSteps,
  models: modelSteps,
  syncs: syncSteps,
  alert_channels: alertChannelSteps,
  alert_rules: alertRuleSteps,
} satisfies { [K in ConfigKind]: (input: KindInput<never>) => Step[] };
