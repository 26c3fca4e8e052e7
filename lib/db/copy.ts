// Moved to lib/connectors/shared/pg-copy.ts. This re-export stays only until lib/engine/pipeline.ts
// (being reworked in parallel) imports from there; delete it then.
export { COPY_NULL, copyEscape, CopyInput } from "@/lib/connectors/shared/pg-copy";
