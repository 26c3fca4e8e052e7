// GET /api/v1/users/me - the signed-in user, its role in the current workspace and its workspaces.
import { route } from "@/lib/http/handler";
import { serializeCurrentUser } from "@/lib/serializers/auth";
import { currentUser } from "@/lib/services/auth";

export const GET = route({ permission: "user" }, async ({ auth }) =>
  serializeCurrentUser(await currentUser(auth)),
);
