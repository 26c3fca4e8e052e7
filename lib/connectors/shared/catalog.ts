import type { Catalog, Stream } from "../types";

/** Catalog-level rate settings default to "no limit the engine must enforce" (0 = unlimited). */
export function buildCatalog(streams: Stream[], rate: Partial<Omit<Catalog, "streams">> = {}): Catalog {
  return {
    streams,
    request_rate_limit: rate.request_rate_limit ?? 0,
    request_rate_limit_unit: rate.request_rate_limit_unit ?? "minute",
    request_rate_concurrency: rate.request_rate_concurrency ?? 1,
  };
}
