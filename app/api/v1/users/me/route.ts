// GET /api/v1/users/me - the signed-in user, its role in the current workspace and its workspaces.
import { authentication } from "@/lib/contract/access";
import { route } from "@/lib/http/handler";
import { serializeCurrentUser } from "@/lib/serializers/auth";
import { currentUser } from "@/lib/services/accounts/auth";

export const GET = route(authentication.getCurrentUser, async ({ auth }) => serializeCurrentUser(await currentUser(auth)));
