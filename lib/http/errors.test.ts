// The one error mapper: every thrown error becomes {message, status, errors: [items]} (behaviour.md
// section 3), with JSON:API-style items the reference console reads (ui/src/services/common.ts
// ErrorResponse {status, title, detail}; ui/src/hooks/useErrorToast.tsx toasts each `detail`).
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadRequest, Conflict, FailedDependency, NotFound, RateLimited, ValidationFailed } from "@/lib/errors";
import { Prisma } from "@/lib/generated/prisma/client";
import { intId } from "@/lib/validation/ids";
import { testOperation } from "@/tests/helpers/operation";
import { errorBody, jsonPointer, pointerPath } from "./error-body";
import { errorResponse } from "./errors";
import { route } from "./handler";

async function shape(res: Response) {
  return { http: res.status, body: await res.json() };
}

describe("errorResponse", () => {
  it("gives an error without fields one item that repeats the message", async () => {
    expect(await shape(errorResponse(new NotFound("Sync 7 was not found.")))).toEqual({
      http: 404,
      body: {
        message: "Sync 7 was not found.",
        status: "not_found",
        errors: [{ status: "404", title: "not_found", detail: "Sync 7 was not found." }],
      },
    });
    const failed = await shape(errorResponse(new FailedDependency("Sync 7 is disabled.")));
    expect(failed.body.errors).toEqual([{ status: "424", title: "failed_dependency", detail: "Sync 7 is disabled." }]);
  });

  it("gives each field problem its own item with a JSON pointer, a parameter or a header", async () => {
    const body = await shape(
      errorResponse(
        new ValidationFailed("Validation failed: …", {
          errors: [
            { path: "sync.schedule_type", message: "is required" },
            { path: "catalog.streams.0.a/b~c", message: "must be a string" },
            { path: "", message: "is required" },
          ],
        }),
      ),
    );
    expect(body.http).toBe(422);
    expect(body.body.errors).toEqual([
      { status: "422", title: "validation_failed", detail: "sync.schedule_type: is required", source: { pointer: "/sync/schedule_type" } },
      {
        status: "422",
        title: "validation_failed",
        detail: "catalog.streams.0.a/b~c: must be a string",
        source: { pointer: "/catalog/streams/0/a~1b~0c" },
      },
      { status: "422", title: "validation_failed", detail: "body: is required", source: { pointer: "" } },
    ]);
    const query = await shape(
      errorResponse(new BadRequest("Invalid query parameter: …", { errors: [{ path: "connector_ids.0", in: "query", message: "x" }] })),
    );
    expect(query.body.errors[0].source).toEqual({ parameter: "connector_ids" });
    const header = await shape(
      errorResponse(new BadRequest("…", { errors: [{ path: "Workspace-Id", in: "header", message: "x" }] })),
    );
    expect(header.body.errors[0].source).toEqual({ header: "Workspace-Id" });
  });

  it("keeps the headers of an error (Retry-After of a 429)", () => {
    const res = errorResponse(new RateLimited("Too many attempts.", { headers: { "Retry-After": "30" } }));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("30");
  });

  it("maps Prisma's unique and missing-record errors, and hides everything about a plain Error", async () => {
    const unique = new Prisma.PrismaClientKnownRequestError("Unique constraint failed on the fields: (`name`)", {
      code: "P2002",
      clientVersion: "7",
    });
    expect(await shape(errorResponse(unique))).toEqual({
      http: 409,
      body: {
        message: "A record with the same unique values already exists.",
        status: "conflict",
        errors: [{ status: "409", title: "conflict", detail: "A record with the same unique values already exists." }],
      },
    });
    const crash = await shape(errorResponse(new Error('relation "secret_table" does not exist'), "req-1"));
    expect(crash.http).toBe(500);
    expect(crash.body.status).toBe("internal_error");
    expect(crash.body.errors).toEqual([{ status: "500", title: "internal_error", detail: crash.body.message }]);
    expect(JSON.stringify(crash.body)).not.toContain("secret_table");
  });

  it("is what a Conflict thrown by a service becomes", async () => {
    const body = (await shape(errorResponse(new Conflict("A connector named x already exists.")))).body;
    expect(body.errors[0]).toEqual({ status: "409", title: "conflict", detail: "A connector named x already exists." });
  });
});

describe("the route wrapper's validation errors", () => {
  const handler = route(
    testOperation({
      permission: "public",
      query: z.object({ page: intId().optional() }),
      body: z.object({
        sync: z.object(
          { model_id: intId("The model."), enabled: z.boolean({ error: "must be true or false" }), name: z.string({ error: "is required" }) },
          { error: "is required: send {sync: {...}}" },
        ),
      }),
    }),
    async ({ body }) => body,
  );
  const post = (body: unknown, query = "") =>
    handler(
      new NextRequest(`http://127.0.0.1/api/v1/test${query}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );

  it("accepts an id as a string of digits and hands the route a number", async () => {
    const res = await post({ sync: { model_id: "12", enabled: true, name: "n" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sync: { model_id: 12, enabled: true, name: "n" } });
  });

  it("says 'is required' only for a missing field, and what came for a present one", async () => {
    const missing = await shape(await post({ sync: {} }));
    expect(missing.http).toBe(422);
    expect(missing.body.errors.map((e: { detail: string }) => e.detail)).toEqual([
      "sync.model_id: is required (an integer id)",
      "sync.enabled: is required and must be true or false",
      "sync.name: is required",
    ]);
    const wrong = await shape(await post({ sync: { model_id: "abc", enabled: "yes", name: 5 } }));
    expect(wrong.body.errors).toEqual([
      {
        status: "422",
        title: "validation_failed",
        detail: 'sync.model_id: must be an integer id (got a string "abc")',
        source: { pointer: "/sync/model_id" },
      },
      {
        status: "422",
        title: "validation_failed",
        detail: 'sync.enabled: must be true or false (got a string "yes")',
        source: { pointer: "/sync/enabled" },
      },
      { status: "422", title: "validation_failed", detail: "sync.name: must be a string (got 5)", source: { pointer: "/sync/name" } },
    ]);
    expect(wrong.body.message).toContain('sync.model_id: must be an integer id (got a string "abc")');
    const notObject = await shape(await post({ sync: "x" }));
    expect(notObject.body.errors[0].detail).toBe('sync: must be an object (got a string "x")');
  });

  it("refuses 0, negatives, fractions and ids past the integer range", async () => {
    for (const [id, said] of [
      [0, "must be an integer id of 1 or more (got 0)"],
      ["-3", 'must be an integer id (got a string "-3")'],
      [-3, "must be an integer id of 1 or more (got -3)"],
      [1.5, "must be an integer id (got 1.5)"],
      ["1.5", 'must be an integer id (got a string "1.5")'],
      [2147483648, "must be an integer id of at most 2147483647 (got 2147483648)"],
      ["99999999999999999999", 'must be an integer id of at most 2147483647 (got a string "99999999999999999999")'],
      [null, "must be an integer id (got null)"],
    ] as const) {
      const res = await shape(await post({ sync: { model_id: id, enabled: true, name: "n" } }));
      expect(res.http, String(id)).toBe(422);
      expect(res.body.errors[0].detail, String(id)).toBe(`sync.model_id: ${said}`);
    }
  });

  it("reports a bad query parameter as a 400 naming the parameter, and bad JSON as a 400 without a source", async () => {
    const query = await shape(await post({ sync: { model_id: 1, enabled: true, name: "n" } }, "?page=x"));
    expect(query.http).toBe(400);
    expect(query.body.errors).toEqual([
      { status: "400", title: "bad_request", detail: 'page: must be an integer id (got a string "x")', source: { parameter: "page" } },
    ]);
    const json = await shape(await post("{not json"));
    expect(json).toEqual({
      http: 400,
      body: {
        message: "The request body is not valid JSON.",
        status: "bad_request",
        errors: [{ status: "400", title: "bad_request", detail: "The request body is not valid JSON." }],
      },
    });
  });

  it("never repeats a value sent for a secret-looking field", async () => {
    const secret = route(
      testOperation({ permission: "public", body: z.object({ password: z.number({ error: "must be a number" }) }) }),
      async () => ({}),
    );
    const res = await secret(
      new NextRequest("http://127.0.0.1/api/v1/test", { method: "POST", body: JSON.stringify({ password: "hunter2" }) }),
    );
    const text = await res.text();
    expect(text).toContain("password: must be a number (got a string)");
    expect(text).not.toContain("hunter2");
    const spec = route(
      testOperation({ permission: "public", body: z.object({ api_token: z.object({ role_id: intId() }), connection_spec: z.object({}) }) }),
      async () => ({}),
    );
    const both = await (
      await spec(
        new NextRequest("http://127.0.0.1/api/v1/test", {
          method: "POST",
          body: JSON.stringify({ api_token: { role_id: "x" }, connection_spec: "postgres://u:hunter2@db/x" }),
        }),
      )
    ).json();
    // The container's name does not hide an id; a string where a configuration belongs stays unshown.
    expect(both.errors.map((e: { detail: string }) => e.detail)).toEqual([
      'api_token.role_id: must be an integer id (got a string "x")',
      "connection_spec: must be an object (got a string)",
    ]);
  });
});

describe("error-body", () => {
  it("round-trips dotted paths and JSON pointers", () => {
    for (const path of ["sync.schedule_type", "a/b.c~d.0", ""]) expect(pointerPath(jsonPointer(path))).toBe(path);
  });
  it("builds the 413 body the HTTP server sends before Next sees a request", () => {
    expect(errorBody(413, "payload_too_large", "The request body is larger than 1 MB.")).toEqual({
      message: "The request body is larger than 1 MB.",
      status: "payload_too_large",
      errors: [{ status: "413", title: "payload_too_large", detail: "The request body is larger than 1 MB." }],
    });
  });
});
