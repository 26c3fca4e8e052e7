// POST /api/v1/signup - create an account and a workspace of its own; the address must be verified
// before signing in. Off unless SIGNUP_ENABLED (403 then, whatever the body).
import { consoleBase } from "@/lib/settings/console-url";
import { accounts } from "@/lib/contract/access";
import { clientAddress } from "@/lib/http/forwarded";
import { route } from "@/lib/http/handler";
import { serializeSignup } from "@/lib/serializers/accounts";
import { assertSignupEnabled, signup, signupAnswer } from "@/lib/services/accounts/accounts";

export const POST = route(
  accounts.signup,
  async ({ req, url, body }) => {
    const result = await signup(body, { ip: clientAddress(req.headers), consoleBase: consoleBase(url) });
    return serializeSignup(result, signupAnswer());
  },
  { available: assertSignupEnabled },
);
