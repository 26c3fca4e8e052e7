// Catalogs stored before the reference protocol's members existed are served with them.
import { describe, expect, it } from "vitest";
import { buildCatalog, withProtocolMembers } from "./catalog";

const stream = { name: "people", url: "public.people", batch_support: false, batch_size: 0, request_method: "GET" as const };

describe("withProtocolMembers", () => {
  it("fills what an old stored catalog lacks, reading the schema mode from its streams", () => {
    const old = { streams: [{ ...stream, json_schema: { type: "object", properties: { id: { type: "integer" } } }, primary_key: ["id"] }], request_rate_limit: 0 };
    expect(withProtocolMembers(old)).toEqual({
      ...old,
      streams: [{ ...old.streams[0], supported_sync_modes: ["full_refresh", "incremental"], source_defined_cursor: false, source_defined_primary_key: [["id"]] }],
      schema_mode: "schema",
      source_defined_cursor: false,
    });
    const open = { streams: [{ ...stream, json_schema: { type: "object", additionalProperties: true } }] };
    expect(withProtocolMembers(open)).toMatchObject({ schema_mode: "schemaless" });
  });

  it("leaves what a catalog states, and anything that is not a catalog, alone", () => {
    const built = buildCatalog([{ ...stream, json_schema: {}, supported_sync_modes: ["incremental"] }], { schema_mode: "schema" });
    expect(withProtocolMembers(built)).toEqual(built);
    expect(withProtocolMembers(null)).toBeNull();
    expect(withProtocolMembers({ streams: "x" })).toEqual({ streams: "x" });
  });
});
