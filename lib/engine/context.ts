// Everything a run needs, loaded once: the sync, its model, both connectors with decrypted
// configurations (ENV placeholders resolved at use time), the destination stream and its rate
// settings, and the compiled mapping.
import "server-only";
import { createHash } from "node:crypto";
import type { DestinationConnector, Row, SourceConnector, Stream } from "@/lib/connectors/types";
import { adapterConfig } from "@/lib/connectors/adapter-config";
import { envRedactor } from "@/lib/connectors/env-placeholders";
import { loadDestination, loadSource } from "@/lib/connectors/registry";
import { redact, secretValues } from "@/lib/connectors/shared/secrets";
import { decryptJson } from "@/lib/crypto/encryption";
import { prisma } from "@/lib/db/client";
import type { Model, Sync, SyncRun } from "@/lib/generated/prisma/client";
import { compileMapping, type CompiledMapping } from "@/lib/sync-rules/mapping";
import { storedRunTimingsSchema, type RunTimings } from "@/lib/sync-rules/run-timings";
import { parseCatalogJson } from "@/lib/validation/catalogs";
import { jsonObjectSchema } from "@/lib/validation/connectors";
import { MalformedStoredValue, parseStored } from "@/lib/validation/stored";
import { effectiveRateSettings, type RateSettings } from "./rate-limit";
import { canonicalJson } from "./diff";
import { splitsByPresence } from "@/lib/sync-rules/write-mode";
import { ConnectorCalls } from "./connector-calls";

/** A problem with the sync's setup: the run fails with this message, nothing is retried. */
export class RunSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RunSetupError";
  }
}

/** A model a run can use: changes are tracked by its primary key, so it has one. */
export type KeyedModel = Model & { primaryKey: string };

/**
 * Unsaved changes a plan is computed with (POST /syncs/{id}/plan with `sync`): the sync as it would
 * be once they are saved. Runs never get one.
 */
export type SyncProposal = Partial<Pick<Sync, "configuration" | "syncMode" | "writeMode" | "detectDeletes" | "guard">>;

export interface RunContext {
  run: SyncRun;
  /** The sync, and its destination's category (the guard's defaults depend on it). */
  sync: Sync & { destinationCategory: string };
  model: KeyedModel;
  /** The registry's source, every call guarded by `calls`. */
  source: SourceConnector;
  sourceConfig: Row;
  /** The registry's destination, every call guarded by `calls`. */
  destination: DestinationConnector;
  destinationConfig: Row;
  stream: Stream;
  rate: RateSettings;
  mapping: CompiledMapping;
  /** Seeds row fingerprints: a change of mapping or stream makes every row "changed" once. */
  fingerprintSeed: string;
  /**
   * Keeps secrets out of the errors and logs a run stores: the secret fields of both connectors'
   * configurations, and whatever ENV['X'] placeholders resolved to.
   */
  scrub: (message: string) => string;
  /** The deadline of each connector call and the switch that abandons them (cancel, shutdown). */
  calls: ConnectorCalls;
  /** What earlier attempts of the run spent per phase (all 0 for a first attempt). */
  timings: RunTimings;
}

function setupError(prefix: string, err: unknown): RunSetupError {
  return new RunSetupError(`${prefix}: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * `read()` of a stored value, where one that does not match its shape (edited by hand, written by a
 * broken version) fails the run with the sentence naming it: a setup problem, not retried.
 */
function storedOrSetupError<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof MalformedStoredValue) throw new RunSetupError(err.message);
    throw err;
  }
}

/** `calls` guards every call the run makes into its connectors (connector-calls.ts). */
export async function loadRunContext(run: SyncRun, calls = new ConnectorCalls(), proposal: SyncProposal = {}): Promise<RunContext> {
  const stored = await prisma().sync.findUnique({
    where: { id: run.syncId },
    include: { model: true, source: true, destination: { include: { catalog: true } } },
  });
  if (!stored) throw new RunSetupError("The sync no longer exists.");
  // A plan of unsaved changes sees the sync as it would be saved: mapping, seed and guard alike.
  const sync = { ...stored, ...proposal };
  const { model, source: sourceRow, destination: destinationRow } = sync;
  // The API refuses syncs on a model without a key; one set up another way fails here, not row by row.
  const { primaryKey } = model;
  if (!primaryKey) throw new RunSetupError(`The model "${model.name}" has no primary key; change tracking needs one: set it on the model.`);

  let source: SourceConnector;
  let destination: DestinationConnector;
  let sourceConfig: Row;
  let destinationConfig: Row;
  try {
    [source, destination] = await Promise.all([loadSource(sourceRow.connectorName), loadDestination(destinationRow.connectorName)]);
  } catch (err) {
    throw setupError("Connector", err);
  }
  const storedSource = storedOrSetupError(() => decryptJson(jsonObjectSchema, sourceRow.configurationEncrypted, `configuration of connector ${sourceRow.id}`));
  const storedDestination = storedOrSetupError(() =>
    decryptJson(jsonObjectSchema, destinationRow.configurationEncrypted, `configuration of connector ${destinationRow.id}`),
  );
  const timings = storedOrSetupError(() => parseStored(storedRunTimingsSchema, run.timings, `timings of run ${run.id}`));
  try {
    sourceConfig = adapterConfig(source.definition, storedSource, sourceRow.workspaceId);
    destinationConfig = adapterConfig(destination.definition, storedDestination, destinationRow.workspaceId);
  } catch (err) {
    throw setupError("Connector configuration", err);
  }
  const scrubSource = envRedactor(storedSource);
  const scrubDestination = envRedactor(storedDestination);
  // Longest first, so a secret containing another is masked whole.
  const secrets = [...secretValues(sourceConfig, source.definition), ...secretValues(destinationConfig, destination.definition)].sort(
    (a, b) => b.length - a.length,
  );

  const storedCatalog = destinationRow.catalog;
  if (!storedCatalog) {
    throw new RunSetupError(`The destination "${destinationRow.name}" has no catalog; discover or create its catalog first.`);
  }
  const catalog = storedOrSetupError(() => parseCatalogJson(storedCatalog.catalog, `connector ${destinationRow.id}`));
  const stream = catalog.streams.find((s) => s.name === sync.streamName);
  if (!stream) {
    throw new RunSetupError(`The destination "${destinationRow.name}" has no stream named "${sync.streamName}".`);
  }

  let mapping: CompiledMapping;
  try {
    mapping = compileMapping(sync.configuration);
  } catch (err) {
    throw setupError("Mapping", err);
  }
  // The seed covers the mapping, so a mapping change re-sends every row. Sources that fingerprint
  // rows themselves (PostgreSQL: md5(seed || row_to_json(row)), see readFingerprinted) hash other
  // text than the engine's JSON; states still holding the engine's fingerprint of an unchanged row
  // take the source's without a send (batch-diff.ts, run-store.ts:rebaselineStates).
  // Entering or leaving update or insert mode (which skip rows) looks at every row again once, so
  // rows those modes skipped are sent when the new mode would send them (docs/write-modes.md).
  const writeMode = splitsByPresence(sync.writeMode) ? sync.writeMode : undefined;
  const fingerprintSeed = createHash("md5")
    .update(canonicalJson({ configuration: sync.configuration, stream: sync.streamName, destination: sync.destinationId, writeMode }))
    .digest("hex");

  const { model: _m, source: _s, destination: _d, ...plainSync } = sync;
  return {
    run,
    sync: { ...plainSync, destinationCategory: destination.definition.category },
    model: { ...model, primaryKey },
    source: calls.source(source),
    sourceConfig,
    destination: calls.destination(destination, destinationConfig),
    destinationConfig,
    calls,
    timings,
    stream,
    rate: effectiveRateSettings(catalog, stream),
    mapping,
    fingerprintSeed,
    scrub: (message) => redact(scrubDestination(scrubSource(message)), secrets),
  };
}
