// Which passwords may be set: at least MIN_PASSWORD_LENGTH characters (the zod schemas) and not one
// of the ~49,000 most common passwords that ship with @zxcvbn-ts/language-common (compared without
// case). Checked on the server wherever a password is set, so the list stays out of the console bundle.
import { dictionary } from "@zxcvbn-ts/language-common";
import { ValidationFailed } from "@/lib/errors";

let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  return common.has(password.toLowerCase());
}

export const COMMON_PASSWORD_MESSAGE =
  "is one of the most common passwords; choose one that is harder to guess";

/** Throws 422 on the field at `path` (e.g. "member.password") for a common password. */
export function assertUncommonPassword(password: string, path: string): void {
  if (!isCommonPassword(password)) return;
  throw ValidationFailed.field(path, COMMON_PASSWORD_MESSAGE);
}
