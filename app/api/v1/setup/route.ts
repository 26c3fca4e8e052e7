// GET /api/v1/setup - whether the first admin still has to be created.
// POST /api/v1/setup - create the first admin (only while no user exists; 409 afterwards).
import { service } from "@/lib/contract/service";
import { route } from "@/lib/http/handler";
import { iso, resource } from "@/lib/serializers/resource";
import { createFirstAdmin, needsSetup } from "@/lib/services/accounts/setup";

export const GET = route(service.getSetup, async () => ({ data: { needs_setup: await needsSetup() } }));

export const POST = route(service.createSetup, async ({ body }) => {
  const user = await createFirstAdmin(body);
  return { data: resource(user.id, "users", { email: user.email, name: user.name, created_at: iso(user.createdAt) }) };
});
