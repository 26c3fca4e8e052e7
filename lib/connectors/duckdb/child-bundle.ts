// The DuckDB child's script, bundled from child-main.ts (lib/runtime/script-bundle.ts). Plain Node
// runs it: under the child's address-space limit a TypeScript loader (tsx's module hooks run a second
// V8 isolate and WebAssembly) would not start below ~16 GiB, where Node with the bundle starts in 2 GiB.
import { bundledScript } from "@/lib/runtime/script-bundle";

export function childScript(): string {
  return bundledScript("lib/connectors/duckdb/child-main.ts", "duckdb-child");
}
