// How a sync writes to its destination. No server imports: the console uses the list and the labels.
import { WriteMode } from "@/lib/generated/prisma/enums";

export type { WriteMode };

export const WRITE_MODES: readonly WriteMode[] = Object.values(WriteMode);

/** One line per mode, for forms and docs. */
export const WRITE_MODE_DESCRIPTIONS: Readonly<Record<WriteMode, string>> = {
  upsert: "Create rows that are new and update rows that changed (the default).",
  update: "Only update rows whose key is already in the destination; new keys are skipped.",
  insert: "Only create rows whose key is new to the destination; keys already there are skipped.",
  mirror: "Upsert, and delete from the destination the rows that left the model.",
};

/** Mirror deletes what left the model by definition; other modes only when delete detection is on. */
export function detectsDeletes(sync: { writeMode: WriteMode; detectDeletes: boolean }): boolean {
  return sync.writeMode === "mirror" || sync.detectDeletes;
}

/** A destination definition's write modes; a definition that names none supports upsert only. */
export function supportedWriteModes(definition: { writeModes?: readonly WriteMode[] }): readonly WriteMode[] {
  return definition.writeModes && definition.writeModes.length > 0 ? definition.writeModes : ["upsert"];
}

/** The mode a sync gets when none is asked for: upsert where the destination takes it, else its first. */
export function defaultWriteMode(definition: { writeModes?: readonly WriteMode[] }): WriteMode {
  const modes = supportedWriteModes(definition);
  return modes.includes("upsert") ? "upsert" : modes[0];
}

/** update and insert write only some rows: they ask the destination which keys it has (lib/engine/write-mode.ts). */
export function splitsByPresence(mode: WriteMode): mode is "update" | "insert" {
  return mode === "update" || mode === "insert";
}

/** The pass-through path upserts COPY lines: only modes that upsert every row may take it. */
export function passesThrough(mode: WriteMode): boolean {
  return mode === "upsert" || mode === "mirror";
}

/** Short names for the console. */
export const WRITE_MODE_LABELS: Readonly<Record<WriteMode, string>> = {
  upsert: "Upsert",
  update: "Update only",
  insert: "Insert only",
  mirror: "Mirror",
};
