// The console puts a 422's field problems on its form fields: it reads each item's source.pointer
// (lib/http/error-body.ts), not a path of its own.
import { describe, expect, it } from "vitest";
import { errorBody } from "@/lib/http/error-body";
import { ApiClient, ApiError, fieldErrors } from "./client";

const apiError = (fields: Parameters<typeof errorBody>[3]) => {
  const body = errorBody(422, "validation_failed", "Validation failed.", fields);
  return new ApiError(body.message, 422, body.status, body.errors);
};

describe("fieldErrors", () => {
  it("keys problems by the pointer's dotted path without the prefixes, with the field's own message", () => {
    const err = apiError([
      { path: "connector.configuration.host", message: "is required" },
      { path: "connector.configuration.host", message: "must be a host name" },
      { path: "connector.name", message: "must not be empty" },
      { path: "connector", message: "is required: send {connector: {...}}" },
    ]);
    expect(fieldErrors(err, "connector.configuration", "connector")).toEqual({
      host: "is required; must be a host name",
      name: "must not be empty",
      "": "is required: send {connector: {...}}",
    });
  });

  it("leaves out items that point at no body field (parameters, whole-request errors)", () => {
    const err = apiError([{ path: "page", in: "query", message: "must be a whole number" }]);
    expect(fieldErrors(err)).toEqual({});
    const plain = new ApiError("Sync 3 is disabled.", 424, "failed_dependency", [
      { status: "424", title: "failed_dependency", detail: "Sync 3 is disabled." },
    ]);
    expect(fieldErrors(plain)).toEqual({});
    expect(fieldErrors(new Error("x"))).toEqual({});
  });
});

describe("ApiClient", () => {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

  function client(answer: Response | Error, options: { workspaceId?: number | null; onUnauthorized?: () => void; signedOut?: () => boolean } = {}) {
    const sent: Request[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Request(input, init));
      if (answer instanceof Error) throw answer;
      return answer;
    };
    return { api: new ApiClient({ ...options, baseUrl: "http://console.test", fetch }), sent };
  }

  it("sends the session cookie of the same origin, JSON and the Workspace-Id header", async () => {
    const { api, sent } = client(json(200, { data: [] }), { workspaceId: 7 });
    await api.ok(api.POST("/api/v1/connectors/{id}/query_source", { params: { path: { id: 3 } }, body: { query: "SELECT 1" } }));
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe("http://console.test/api/v1/connectors/3/query_source");
    expect(sent[0].method).toBe("POST");
    expect(sent[0].credentials).toBe("same-origin");
    expect(sent[0].headers.get("workspace-id")).toBe("7");
    expect(sent[0].headers.get("content-type")).toBe("application/json");
    expect(await sent[0].json()).toEqual({ query: "SELECT 1" });
  });

  it("leaves empty query values out and sends no Workspace-Id without a workspace", async () => {
    const { api, sent } = client(json(200, { data: [] }));
    await api.ok(api.GET("/api/v1/connector_definitions", { params: { query: { type: "source", category: undefined } } }));
    expect(sent[0].url).toBe("http://console.test/api/v1/connector_definitions?type=source");
    expect(sent[0].headers.has("workspace-id")).toBe(false);
  });

  it("turns an error answer into an ApiError with the API's message, code and items", async () => {
    const body = errorBody(422, "validation_failed", "Validation failed.", [{ path: "model.name", message: "is required" }]);
    const { api } = client(json(422, body));
    const err = await api.ok(api.DELETE("/api/v1/models/{id}", { params: { path: { id: 1 } } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ message: "Validation failed.", httpStatus: 422, code: "validation_failed" });
    expect(fieldErrors(err, "model")).toEqual({ name: "is required" });
  });

  it("tells the console once the session is gone (401), and names an unreachable server", async () => {
    let expired = 0;
    const { api } = client(json(401, { message: "Sign in again.", status: "unauthorized", errors: [] }), {
      onUnauthorized: () => expired++,
    });
    await expect(api.ok(api.GET("/api/v1/users/me"))).rejects.toMatchObject({ httpStatus: 401, code: "unauthorized" });
    expect(expired).toBe(1);
    const offline = client(new TypeError("fetch failed"));
    await expect(offline.api.ok(offline.api.GET("/api/v1/users/me"))).rejects.toMatchObject({ httpStatus: 0, code: "network_error" });
  });

  it("once signed out, sends nothing: every call is answered 401 at once (a polling page stops hitting the API)", async () => {
    let out = false;
    const { api, sent } = client(json(200, { data: [] }), { signedOut: () => out });
    await api.ok(api.GET("/api/v1/syncs"));
    out = true;
    await expect(api.ok(api.GET("/api/v1/syncs"))).rejects.toMatchObject({ httpStatus: 401, code: "unauthorized" });
    await expect(api.ok(api.DELETE("/api/v1/models/{id}", { params: { path: { id: 1 } } }))).rejects.toMatchObject({ httpStatus: 401 });
    expect(sent).toHaveLength(1);
  });

  it("hands a call's abort signal to the request, and names an aborted call", async () => {
    const controller = new AbortController();
    const sent: Request[] = [];
    const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      sent.push(request);
      return new Promise<Response>((_, reject) => request.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    };
    const api = new ApiClient({ baseUrl: "http://console.test", fetch });
    const pending = api.ok(api.POST("/api/v1/syncs/{id}/plan", { params: { path: { id: 3 } }, body: {}, signal: controller.signal }));
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "aborted" });
    expect(sent[0].signal.aborted).toBe(true);
  });

  it("answers undefined for 204 and the parsed body otherwise", async () => {
    const gone = client(new Response(null, { status: 204 }));
    expect(await gone.api.ok(gone.api.DELETE("/api/v1/models/{id}", { params: { path: { id: 1 } } }))).toBeUndefined();
    const health = client(json(200, { status: "ok", database: "up" }));
    expect(await health.api.ok(health.api.GET("/api/health"))).toEqual({ status: "ok", database: "up" });
  });
});
