import { describe, expect, it } from "vitest";
import { buildCatalog } from "@/lib/connectors/shared/catalog";
import { parseCatalogJson } from "./catalogs";

const stream = { name: " Orders ", url: "orders", json_schema: { type: "object" }, batch_support: false, batch_size: 0, request_method: "POST" as const };

describe("parseCatalogJson", () => {
  it("reads a catalog as buildCatalog stores it, stream names untouched", () => {
    const stored = JSON.parse(JSON.stringify(buildCatalog([stream], { request_rate_limit: 60, schema_mode: "schemaless" })));
    const catalog = parseCatalogJson(stored, "connector 1");
    expect(catalog).toEqual(stored);
    expect(catalog.streams[0].name).toBe(" Orders ");
  });

  it("reads a catalog stored before the protocol members, filling the stream defaults", () => {
    const stored = { streams: [{ name: "t" }], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 1 };
    const catalog = parseCatalogJson(stored, "connector 1");
    expect(catalog.streams[0]).toEqual({ name: "t", url: "unknown", json_schema: {}, batch_support: false, batch_size: 0, request_method: "POST" });
    expect(catalog.schema_mode).toBeUndefined();
  });

  it.each([
    ["null", null, /\(root\)/],
    ["no streams", { request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 1 }, /streams/],
    ["a nameless stream", { streams: [{ url: "x" }], request_rate_limit: 0, request_rate_limit_unit: "minute", request_rate_concurrency: 1 }, /streams\.0\.name/],
    ["an unknown rate unit", { streams: [], request_rate_limit: 0, request_rate_limit_unit: "fortnight", request_rate_concurrency: 1 }, /request_rate_limit_unit/],
  ])("refuses malformed JSON (%s) with an error naming the connector and the place", (_, json, where) => {
    expect(() => parseCatalogJson(json, "connector 9")).toThrow(/^Malformed stored catalog of connector 9: /);
    expect(() => parseCatalogJson(json, "connector 9")).toThrow(where);
  });
});
