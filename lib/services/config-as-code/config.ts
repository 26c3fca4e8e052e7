// Configuration as code (docs/config-as-code.md): export the workspace as a document, plan what a
// document would change, apply it. Apply makes every change in one transaction through the
// resources' own services (./config-kinds.ts): any refusal rolls all of it back. Plan is the same
// run, rolled back at the end, so it finds every error apply would.
import "server-only";
import { sameJson } from "@/lib/config-as-code/diff";
import { resolveSecretRefs } from "@/lib/config-as-code/secret-refs";
import { stringifyConfigYaml } from "@/lib/config-as-code/yaml";
import { can, type Action, type Resource } from "@/lib/auth/permissions";
import { mayNot } from "@/lib/auth/refusal";
import { getDefinition, maskSecrets, SECRET_MASK } from "@/lib/connectors/registry";
import type { Row } from "@/lib/connectors/types";
import { prisma } from "@/lib/db/client";
import { logger } from "@/lib/logger";
import { AppError, Conflict, FailedDependency, fieldSummary, Forbidden, NotFound, ValidationFailed, type FieldError } from "@/lib/errors";
import { CONFIG_KINDS, CONFIG_VERSION, type ConfigDocument, type ConfigKind, type ConfigPlan } from "@/lib/validation/config";
import { audit } from "../insights/audit";
import type { AuthContext } from "../accounts/auth-context";
import { deleteSteps, KIND_HANDLERS, type Step, type StepContext } from "./kinds";
import { exportable, loadWorkspaceConfig, matchEntries, type Matches, type WorkspaceConfig } from "./state";

type Auth = Pick<AuthContext, "workspaceId" | "user" | "policies" | "roleName" | "apiToken">;

const RESOURCE: Record<ConfigKind, Resource> = { connectors: "connector", models: "model", syncs: "sync", alert_channels: "alert", alert_rules: "alert" };
const NOUN: Record<ConfigKind, string> = { connectors: "connector", models: "model", syncs: "sync", alert_channels: "alert channel", alert_rules: "alert rule" };

/** Kinds as words: "alert channels", not "alert_channels". */
const kindList = (kinds: readonly ConfigKind[]) => kinds.map((k) => k.replace(/_/g, " ")).join(", ");
const readNeeds = (kinds: readonly ConfigKind[]): [Resource, Action][] => kinds.map((k) => [RESOURCE[k], "read"]);

/** A file of many objects takes longer than Prisma's 5 s default for an interactive transaction. */
const APPLY_TIMEOUT_MS = 120_000;

/**
 * The workspace as YAML. Needs read on each kind exported (`kinds`, default all); secrets are
 * written as ${env:NAME} references, never as values.
 */
export async function exportConfig(auth: Auth, kinds: readonly ConfigKind[] = CONFIG_KINDS): Promise<string> {
  const refused = kinds.filter((k) => !can(auth.policies, RESOURCE[k], "read"));
  if (refused.length > 0) {
    throw new Forbidden(`${mayNot(auth, `read ${kindList(refused)}`, readNeeds(refused))}; export only the kinds it may read (?kinds=…).`);
  }
  const state = await loadWorkspaceConfig(prisma(), auth.workspaceId);
  const document: Record<string, unknown> = { version: CONFIG_VERSION };
  for (const kind of kinds) document[kind] = kind === "alert_rules" ? state.alert_rules.filter((r) => exportable(r, state)).map((r) => r.entry) : state[kind].map((k) => k.entry);
  return stringifyConfigYaml(document);
}

/** The slugs a document's entries point at must be entries of the file or objects of the workspace. */
function referenceErrors(doc: ConfigDocument, state: WorkspaceConfig): FieldError[] {
  const known = (kind: ConfigKind, slug: string) =>
    (doc[kind] ?? []).some((e) => e.slug === slug) || state[kind].some((k) => k.slug === slug);
  const errors: FieldError[] = [];
  const check = (path: string, kind: ConfigKind, slug: string, owner: string) => {
    if (!known(kind, slug)) errors.push({ path, message: `(${owner}) names ${NOUN[kind]} "${slug}", which is neither an entry of the file nor a ${NOUN[kind]} of the workspace` });
  };
  doc.models?.forEach((m, i) => check(`models.${i}.connector`, "connectors", m.connector, `model "${m.slug}"`));
  doc.syncs?.forEach((s, i) => {
    check(`syncs.${i}.source`, "connectors", s.source, `sync "${s.slug}"`);
    check(`syncs.${i}.destination`, "connectors", s.destination, `sync "${s.slug}"`);
    check(`syncs.${i}.model`, "models", s.model, `sync "${s.slug}"`);
    s.run_after?.forEach((u, j) => check(`syncs.${i}.run_after.${j}`, "syncs", u, `sync "${s.slug}"`));
  });
  doc.alert_rules?.forEach((r, i) => {
    if (r.sync) check(`alert_rules.${i}.sync`, "syncs", r.sync, `alert rule "${r.slug}"`);
    r.channels.forEach((c, j) => check(`alert_rules.${i}.channels.${j}`, "alert_channels", c, `alert rule "${r.slug}"`));
  });
  return errors;
}

/** Every change, in the order apply makes them: creates and updates by kind, then deletes in reverse. */
function planSteps(doc: ConfigDocument, state: WorkspaceConfig, matches: Matches): Step[] {
  const secrets = doc.secrets ?? {};
  const upserts = CONFIG_KINDS.flatMap((kind) => {
    const entries = doc[kind];
    return entries ? KIND_HANDLERS[kind]({ entries: entries as never[], state, matches, secrets }) : [];
  });
  const deletes = doc.prune
    ? [...CONFIG_KINDS].reverse().flatMap((kind) => {
        const matched = new Set([...matches[kind].values()].map((k) => k.id));
        return doc[kind] ? deleteSteps(kind, state[kind], matched) : [];
      })
    : [];
  return [...upserts, ...deletes];
}

/** What a kind's entries point at: a model its connector, a sync its connectors and model (and syncs by run_after), a rule its sync and channels. */
const POINTS_AT: Record<ConfigKind, readonly ConfigKind[]> = {
  connectors: [],
  models: ["connectors"],
  syncs: ["connectors", "models"],
  alert_channels: [],
  alert_rules: ["syncs", "alert_channels"],
};

/**
 * Plan and apply compare the file with the workspace's objects, and the answer tells what they hold
 * (plain values before and after, which slugs exist, how many are unchanged): the role needs read of
 * each kind the file lists and each kind those point at, as export does.
 */
function assertReadable(auth: Auth, doc: ConfigDocument): void {
  const listed = CONFIG_KINDS.filter((k) => doc[k] !== undefined);
  const needed = new Set(listed.flatMap((k) => [k, ...POINTS_AT[k]]));
  const refused = CONFIG_KINDS.filter((k) => needed.has(k) && !can(auth.policies, RESOURCE[k], "read"));
  if (refused.length > 0) {
    throw new Forbidden(`${mayNot(auth, `read ${kindList(refused)}`, readNeeds(refused))}, which plan and apply compare the file with; nothing was changed.`);
  }
}

/**
 * Existing connectors the file hands a secret for. The plan compares it with the stored secret, so
 * for a role that may not update connectors, "no change" against "may not update" would tell whether
 * a guessed password is right: handing one in counts as updating the connector, whatever it holds.
 */
function secretUpdates(auth: Auth, doc: ConfigDocument, matches: Matches): string[] {
  if (can(auth.policies, "connector", "update")) return [];
  const secrets = doc.secrets ?? {};
  return (doc.connectors ?? [])
    .filter((entry) => {
      const definition = matches.connectors.has(entry.slug) ? getDefinition(entry.connector_name, entry.connector_type) : undefined;
      if (!definition) return false;
      const configuration = resolveSecretRefs(entry.configuration, secrets, SECRET_MASK).value as Row;
      return !sameJson(maskSecrets(configuration, definition), configuration);
    })
    .map((entry) => entry.slug);
}

/**
 * The role must hold kind.action for every change, and update of each connector it hands a secret
 * for (listed first, so the sentence is the same whether that secret differs or not); one sentence
 * lists all it lacks.
 */
function assertAllowed(auth: Auth, steps: readonly Step[], connectorSecrets: readonly string[]): void {
  const lacking = new Map<string, string[]>();
  const add = (key: string, slug: string) => {
    const slugs = lacking.get(key) ?? [];
    if (!slugs.includes(`"${slug}"`)) lacking.set(key, [...slugs, `"${slug}"`]);
  };
  const needs: [Resource, Action][] = [];
  for (const slug of connectorSecrets) add("update connectors", slug);
  if (connectorSecrets.length > 0) needs.push(["connector", "update"]);
  for (const s of steps) {
    if (can(auth.policies, RESOURCE[s.kind], s.action)) continue;
    add(`${s.action} ${kindList([s.kind])}`, s.slug);
    needs.push([RESOURCE[s.kind], s.action]);
  }
  if (lacking.size === 0) return;
  const parts = [...lacking].map(([what, slugs]) => `${what} (${slugs.slice(0, 5).join(", ")}${slugs.length > 5 ? ", …" : ""})`);
  throw new Forbidden(`${mayNot(auth, parts.join(", nor "), needs)}; nothing was changed.`);
}

/** Field paths of a resource's service (`sync.model_id`) as paths of the file (`syncs.2.model`). */
const FIELD_RENAMES: Record<string, string> = {
  source_id: "source",
  destination_id: "destination",
  model_id: "model",
  connector_id: "connector",
  sync_id: "sync",
  channel_ids: "channels",
  sync_ids: "run_after",
};

/** The error of a step, naming its object and, for field errors, the entry's field. */
function located(err: unknown, step: Step): unknown {
  if (!(err instanceof AppError)) return err;
  const what = `${NOUN[step.kind]} "${step.slug}"`;
  const base = step.index >= 0 ? `${step.kind}.${step.index}` : `${step.kind}`;
  const remapped = err.errors?.map((e) => {
    const [, ...rest] = e.path.split(".");
    const field = rest.map((p, i) => (i === 0 ? (FIELD_RENAMES[p] ?? p) : p)).join(".");
    return { ...e, path: field ? `${base}.${field}` : base };
  });
  const verb = step.action === "delete" ? "Deleting" : step.action === "create" ? "Creating" : "Updating";
  // The sentence names the file's paths, not the resource endpoint's (sync.stream_name → syncs.0.stream_name).
  const why = err instanceof ValidationFailed && remapped?.length ? `Validation failed: ${fieldSummary(remapped)}` : err.message;
  const message = `${verb} ${what}: ${why}`;
  const errors = remapped?.map((e) => ({ ...e, message: `(${what}) ${e.message}` }));
  const options = errors ? { errors } : undefined;
  if (err instanceof ValidationFailed) return new ValidationFailed(message, options);
  if (err instanceof Conflict) return new Conflict(message, options);
  if (err instanceof NotFound) return new ValidationFailed(message, options);
  if (err instanceof FailedDependency) return new FailedDependency(message, options);
  return err;
}

const slugIds = (known: readonly { slug: string; id: number }[], matched: ReadonlyMap<string, { id: number }>) =>
  new Map([...known.map((k): [string, number] => [k.slug, k.id]), ...[...matched].map(([slug, k]): [string, number] => [slug, k.id])]);

/** Thrown to roll a plan's transaction back, carrying its answer out. */
class PlanDone extends Error {
  constructor(readonly plan: ConfigPlan) {
    super("plan");
  }
}

function answer(steps: readonly Step[], ids: (number | null)[], applied: boolean, unchanged: number): ConfigPlan {
  return {
    applied,
    changes: steps.map((s, i) => ({ kind: s.kind, slug: s.slug, action: s.action, id: applied ? ids[i] : s.id, fields: s.fields })),
    summary: {
      create: steps.filter((s) => s.action === "create").length,
      update: steps.filter((s) => s.action === "update").length,
      delete: steps.filter((s) => s.action === "delete").length,
      unchanged,
    },
  };
}

async function run(auth: Auth, doc: ConfigDocument, commit: boolean): Promise<ConfigPlan> {
  assertReadable(auth, doc);
  const afterCommit: (() => Promise<void>)[] = [];
  try {
    const result = await prisma().$transaction(
      async (tx) => {
        const state = await loadWorkspaceConfig(tx, auth.workspaceId);
        const refErrors = referenceErrors(doc, state);
        if (refErrors.length > 0) throw ValidationFailed.fromFields(refErrors);
        const matches = matchEntries(doc, state);
        const steps = planSteps(doc, state, matches);
        assertAllowed(auth, steps, secretUpdates(auth, doc, matches));
        const entries = CONFIG_KINDS.reduce((n, k) => n + (doc[k]?.length ?? 0), 0);
        const unchanged = entries - steps.filter((s) => s.action !== "delete").length;
        // Filled by the steps; a transaction retried from the start must not run its first try's.
        afterCommit.length = 0;
        const ctx: StepContext = {
          tx,
          auth,
          afterCommit,
          // The workspace's own slugs (references to objects the file does not list), then the file's.
          ids: {
            connectors: slugIds(state.connectors, matches.connectors),
            models: slugIds(state.models, matches.models),
            syncs: slugIds(state.syncs, matches.syncs),
            alert_channels: slugIds(state.alert_channels, matches.alert_channels),
            alert_rules: slugIds(state.alert_rules, matches.alert_rules),
          },
        };
        const ids: number[] = [];
        const runStep = async (step: Step) => {
          const id = await step.run(ctx).catch((err: unknown) => {
            throw located(err, step);
          });
          ctx.ids[step.kind].set(step.slug, id);
          ids.push(id);
        };
        const upserts = steps.filter((s) => s.action !== "delete");
        for (const step of upserts) await runStep(step);
        // Work that needs every object of the file (run_after lists), then the deletes.
        for (let pass = 0; upserts.some((s) => s.passes?.[pass]); pass++) {
          for (const [i, step] of upserts.entries()) {
            await step.passes?.[pass]?.(ctx, ids[i]).catch((err: unknown) => {
              throw located(err, step);
            });
          }
        }
        for (const step of steps.filter((s) => s.action === "delete")) await runStep(step);
        const result = answer(steps, ids, commit, unchanged);
        if (!commit) throw new PlanDone(result);
        await audit(auth, "apply", "config", null, { summary: result.summary, changes: result.changes.map(({ kind, slug, action, id }) => ({ kind, slug, action, id })) }, tx);
        return result;
      },
      { timeout: APPLY_TIMEOUT_MS },
    );
    // Committed: what the steps left for after it (a live sync started or stopped, as the API does).
    await runAfterCommit(afterCommit);
    return result;
  } catch (err) {
    if (err instanceof PlanDone) return err.plan;
    throw err;
  }
}

/** Each in turn; one that fails is logged, not thrown: the apply has committed, and said so in its answer. */
async function runAfterCommit(work: readonly (() => Promise<void>)[]): Promise<void> {
  for (const w of work) {
    await w().catch((err: unknown) => logger.warn({ err: (err as Error).message }, "config apply: work after the commit failed"));
  }
}

/** What applying `doc` would change, checked as apply checks it; nothing is written. */
export const planConfig = (auth: Auth, doc: ConfigDocument): Promise<ConfigPlan> => run(auth, doc, false);

/** Applies `doc` in one transaction: every change, or (on any error) none. Audit-logged. */
export const applyConfig = (auth: Auth, doc: ConfigDocument): Promise<ConfigPlan> => run(auth, doc, true);
