// What the console's sign-in form can tell apart. next-auth hands the form one string: the message
// authorize() threw, or "CredentialsSignin" when it returned null (wrong email or password). The
// server encodes the other outcomes in that message; the form turns it back into a sentence.
// No server imports: the login form bundles this module.

export type SignInFailure = "throttled" | "unavailable" | "refused" | "error";

const PREFIX = "datasync-sign-in:";

export const WRONG_CREDENTIALS = "The email or password is incorrect.";
const UNAVAILABLE = "Signing in is not possible right now: the service cannot reach its database. Try again in a moment.";
const SERVER_ERROR = "Signing in failed because of an error on the server. Try again; if it keeps failing, tell your administrator.";

/** The message for authorize() to throw; `detail` is shown as it is for throttled and refused. */
export function signInError(kind: SignInFailure, detail = ""): string {
  return `${PREFIX}${kind}:${detail}`;
}

/** The sentence the form shows for next-auth's `error` string. */
export function signInErrorMessage(error: string | null | undefined): string {
  if (!error?.startsWith(PREFIX)) return WRONG_CREDENTIALS;
  const rest = error.slice(PREFIX.length);
  const colon = rest.indexOf(":");
  const kind = rest.slice(0, colon);
  const detail = rest.slice(colon + 1);
  if (kind === "unavailable") return UNAVAILABLE;
  if ((kind === "throttled" || kind === "refused") && detail) return detail;
  return SERVER_ERROR;
}
