// Helpers for API contract tests over real HTTP: sign in, make an isolated workspace per test file,
// and call endpoints with the bearer token and Workspace-Id header.
import { expect, type APIRequestContext, type APIResponse } from "@playwright/test";

export const ADMIN = { email: "admin@example.com", password: "e2e-admin-password" };

export interface Session {
  token: string;
  workspaceId?: number;
}

export async function loginAs(request: APIRequestContext, email: string, password: string): Promise<string> {
  const res = await request.post("/api/v1/login", { data: { email, password } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.attributes.token as string;
}

export function headers(session: Session): Record<string, string> {
  return {
    Authorization: `Bearer ${session.token}`,
    ...(session.workspaceId ? { "Workspace-Id": String(session.workspaceId) } : {}),
  };
}

export class Api {
  constructor(
    private readonly request: APIRequestContext,
    public session: Session,
  ) {}

  get(path: string): Promise<APIResponse> {
    return this.request.get(path, { headers: headers(this.session) });
  }
  post(path: string, data?: unknown): Promise<APIResponse> {
    return this.request.post(path, { headers: headers(this.session), data });
  }
  put(path: string, data?: unknown): Promise<APIResponse> {
    return this.request.put(path, { headers: headers(this.session), data });
  }
  patch(path: string, data?: unknown): Promise<APIResponse> {
    return this.request.patch(path, { headers: headers(this.session), data });
  }
  delete(path: string): Promise<APIResponse> {
    return this.request.delete(path, { headers: headers(this.session) });
  }
}

/** Expects the one error body of behaviour.md section 3. */
export async function expectError(res: APIResponse, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status(), await res.text()).toBe(status);
  const body = await res.json();
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(3);
  expect(body.status).toBe(code);
  return body;
}
