// What the bad-input and tenant-isolation sweeps need on top of the endpoint table
// (e2e/support/endpoints.ts): the table joined with each endpoint's sweep spec (sweep-specs.ts:
// which real resource each path placeholder names, a valid body, its query parameters, whether a
// valid call changes data) and the paths filled with real ids (from sweep-fixture.ts).
import { ENDPOINTS, pathKey, type Endpoint } from "./endpoints";
import { SPECS, type Ids, type SweepSpec } from "./sweep-specs";

export interface SweepEndpoint extends SweepSpec {
  method: Endpoint["method"];
  /** The path template of the table, without its query string. */
  path: string;
  key: string;
}

export const endpointKey = (e: Pick<Endpoint, "method" | "path">) => `${e.method} ${pathKey(e.path)}`;

/** Entries of the endpoint table with no sweep spec (a test fails on them). */
export const UNSPECIFIED = ENDPOINTS.filter((e) => !e.skip && !SPECS[endpointKey(e)]).map(endpointKey);

/** The endpoint table joined with the sweep specs, skipped ones left out. */
export const SWEEP: SweepEndpoint[] = ENDPOINTS.flatMap((e) => {
  const spec = SPECS[endpointKey(e)];
  if (!spec || spec.skip || e.skip) return [];
  return [{ ...spec, method: e.method, path: e.path.split("?")[0], key: endpointKey(e) }];
});

/** Number of path placeholders. */
export const placeholderCount = (path: string) => (path.match(/\{[^}]+\}/g) ?? []).length;

/** The path with its placeholders filled from `ids` (`override[i]` replaces the i-th one). */
export function fillPath(e: SweepEndpoint, ids: Ids, override: Record<number, string> = {}): string {
  let i = 0;
  return e.path.replace(/\{[^}]+\}/g, () => {
    const index = i++;
    return override[index] ?? String(ids[e.ids![index]]);
  });
}

/** The list cut into runs of `size`, in order. */
export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
