// GET /api/v1/setup - whether the first admin still has to be created.
// POST /api/v1/setup - create the first admin (only while no user exists; 409 afterwards).
import { route } from "@/lib/http/handler";
import { iso, resource } from "@/lib/serializers/resource";
import { setupSchema } from "@/lib/validation/setup";
import { createFirstAdmin, needsSetup } from "@/lib/services/setup";

export const GET = route({ permission: "public" }, async () => ({ data: { needs_setup: await needsSetup() } }));

export const POST = route({ permission: "public", body: setupSchema }, async ({ body }) => {
  const user = await createFirstAdmin(body);
  return Response.json(
    { data: resource(user.id, "users", { email: user.email, name: user.name, created_at: iso(user.createdAt) }) },
    { status: 201 },
  );
});
