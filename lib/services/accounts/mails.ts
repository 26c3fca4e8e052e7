// The texts of the account mails. Links follow the reference console's routes
// (ui/src/routes/main.tsx: /verify-user, /reset-password, /sign-in, /forgot-password; the reference
// server's mail templates put the token in `confirmation_token` / `reset_password_token`), and this
// server's own console answers the same paths.
import "server-only";
import type { MailMessage } from "@/lib/mail";
import { oneLine, quoted } from "../notifications/alerts/subject";

const link = (base: string, path: string, params: Record<string, string> = {}) => {
  const query = new URLSearchParams(params).toString();
  return `${base}${path}${query ? `?${query}` : ""}`;
};

export function verificationMail(base: string, to: string, token: string, hours: number): MailMessage {
  const url = link(base, "/verify-user", { confirmation_token: token, email: to });
  return {
    to,
    subject: "Verify your email address",
    link: url,
    text: [
      "Open this link to verify your email address and finish signing up:",
      "",
      url,
      "",
      `The link works once, for ${hours} hours. If you did not sign up, ignore this mail: the account stays unusable.`,
    ].join("\n"),
  };
}

export function resetPasswordMail(base: string, to: string, token: string, minutes: number): MailMessage {
  const url = link(base, "/reset-password", { reset_password_token: token });
  return {
    to,
    subject: "Reset your password",
    link: url,
    text: [
      "Someone, hopefully you, asked to reset the password of the account that uses this address.",
      "Open this link to choose a new one:",
      "",
      url,
      "",
      `The link works once, for ${minutes} minutes. If you did not ask, ignore this mail: your password stays as it is.`,
    ].join("\n"),
  };
}

/** Sent instead of a verification when someone signs up with an address that has an account already. */
export function alreadyRegisteredMail(base: string, to: string): MailMessage {
  const forgot = link(base, "/forgot-password");
  return {
    to,
    subject: "You already have an account",
    link: forgot,
    text: [
      "Someone, perhaps you, tried to sign up with this address, but an account uses it already. Nothing was changed.",
      "",
      `Sign in: ${link(base, "/sign-in")}`,
      `Forgot the password, or never chose one? Set a new one here: ${forgot}`,
      "",
      "If it was not you, you can ignore this mail.",
    ].join("\n"),
  };
}

export interface InvitationMailInput {
  workspace: string;
  /** Who invited: the name they chose, and their account's address. */
  inviter: { name: string; email: string };
  /** The account has no password yet: the link asks for one. */
  setPassword: boolean;
  days: number;
}

/**
 * An invitation into a workspace. Only the person who reads this inbox can accept it: the link is
 * the acceptance, and for an address without an account it is also where its password is chosen.
 * The workspace's and the inviter's names are text of the inviter's choosing, mailed to an address
 * of their choosing: like the workspace text in alert subjects (alerts/subject.ts) they are quoted,
 * cut short and made one plain line, so they can neither add a header nor pose as our own words.
 */
export function invitationMail(base: string, to: string, token: string, invite: InvitationMailInput): MailMessage {
  const url = link(base, "/accept-invitation", {
    invitation_token: token,
    ...(invite.setPassword ? { new_account: "1" } : {}),
  });
  return {
    to,
    subject: `You are invited to the Datasync workspace ${quoted(invite.workspace)}`,
    link: url,
    text: [
      `${quoted(invite.inviter.name)} (${oneLine(invite.inviter.email)}) invited this address into the Datasync workspace ${quoted(invite.workspace)}.`,
      invite.setPassword
        ? "Open this link to accept and choose the password of your account:"
        : "Open this link and enter the password of your account to accept:",
      "",
      url,
      "",
      `The link works once, for ${invite.days} days. Until you accept, the workspace gives your account no access.`,
      "If you do not know this workspace, ignore this mail: nothing happens without you.",
    ].join("\n"),
  };
}
