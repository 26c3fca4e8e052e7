"use client";
// The console ends of the account mails: ask for a reset link, set a new password from one, verify
// an address, and accept an invitation. Same paths and query members as the reference console (lib/services/accounts/mails.ts),
// so a link works whichever console CONSOLE_URL names.
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { AuthCard } from "./auth-card";

interface Outcome {
  ok: boolean;
  message: string;
}

async function call(method: "GET" | "POST", url: string, body?: unknown): Promise<Outcome> {
  try {
    const res = await fetch(url, {
      method,
      headers: body ? { "Content-Type": "application/json" } : undefined,
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    });
    const json = await res.json().catch(() => null);
    return {
      ok: res.ok,
      message: res.ok ? (json?.data?.attributes?.message ?? "Done.") : (json?.message ?? "Something went wrong. Try again."),
    };
  } catch {
    return { ok: false, message: "The server could not be reached. Try again." };
  }
}

const backToSignIn = (
  <p className="mt-4 text-center text-sm">
    <Link href="/login" className="text-indigo-600 hover:underline">
      Back to sign in
    </Link>
  </p>
);

/**
 * `sendsMail`: the server's SMTP_URL is set. Without it no link can reach the person, so the page
 * says so from the start, and the answer (the same for any address) sends them to an administrator.
 */
export function ForgotPasswordForm({ sendsMail }: { sendsMail: boolean }) {
  const [email, setEmail] = useState("");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <AuthCard
      title="Forgot your password?"
      subtitle={
        sendsMail
          ? "We mail you a link to choose a new one."
          : "This server sends no mail, so it cannot mail you a link: an administrator of this server resets your password for you."
      }
    >
      {outcome?.ok ? (
        <p role="status" className="text-sm text-slate-700">
          {outcome.message}
        </p>
      ) : (
        <form
          className="space-y-4"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setOutcome(await call("POST", "/api/v1/forgot_password", { email }));
            setBusy(false);
          }}
        >
          <Field label="Email">
            {(p) => <Input {...p} type="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />}
          </Field>
          <InlineError message={outcome?.message} />
          <Button type="submit" className="w-full" loading={busy}>
            {sendsMail ? "Send the link" : "Ask for a reset"}
          </Button>
        </form>
      )}
      {backToSignIn}
    </AuthCard>
  );
}

export function ResetPasswordForm({ token }: { token: string }) {
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <AuthCard title="Choose a new password" subtitle="Every session of your account ends when it is set.">
      {outcome?.ok ? (
        <p role="status" className="text-sm text-slate-700">
          {outcome.message}
        </p>
      ) : (
        <form
          className="space-y-4"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setOutcome(
              await call("POST", "/api/v1/reset_password", {
                reset_password_token: token,
                password,
                password_confirmation: confirmation,
              }),
            );
            setBusy(false);
          }}
        >
          <Field label="New password" hint="At least 8 characters, and not easy to guess: a few uncommon words work well.">
            {(p) => <Input {...p} type="password" autoComplete="new-password" required autoFocus value={password} onChange={(e) => setPassword(e.target.value)} />}
          </Field>
          <Field label="The new password again">
            {(p) => <Input {...p} type="password" autoComplete="new-password" required value={confirmation} onChange={(e) => setConfirmation(e.target.value)} />}
          </Field>
          <InlineError message={token ? outcome?.message : "This page needs the link from the mail."} />
          <Button type="submit" className="w-full" loading={busy} disabled={!token}>
            Set the password
          </Button>
        </form>
      )}
      {backToSignIn}
    </AuthCard>
  );
}

/**
 * The link of an invitation mail: /accept-invitation?invitation_token=…[&new_account=1]. A new
 * account chooses its password here; an existing one gives its own (the server decides either way).
 */
export function AcceptInvitationForm({ token, newAccount }: { token: string; newAccount: boolean }) {
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <AuthCard
      title="Accept the invitation"
      subtitle={newAccount ? "Choose the password of your account; you then sign in with it." : "Enter the password of your account to join the workspace."}
    >
      {outcome?.ok ? (
        <p role="status" className="text-sm text-slate-700">
          {outcome.message}
        </p>
      ) : (
        <form
          className="space-y-4"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setOutcome(
              await call("POST", "/api/v1/accept_invitation", {
                invitation_token: token,
                password,
                ...(newAccount ? { password_confirmation: confirmation } : {}),
              }),
            );
            setBusy(false);
          }}
        >
          <Field
            label={newAccount ? "Password" : "Your password"}
            hint={newAccount ? "At least 8 characters, and not easy to guess: a few uncommon words work well." : "The one you sign in with. Never chose one? Use Forgot password first."}
          >
            {(p) => (
              <Input
                {...p}
                type="password"
                autoComplete={newAccount ? "new-password" : "current-password"}
                required
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            )}
          </Field>
          {newAccount && (
            <Field label="The password again">
              {(p) => <Input {...p} type="password" autoComplete="new-password" required value={confirmation} onChange={(e) => setConfirmation(e.target.value)} />}
            </Field>
          )}
          <InlineError message={token ? outcome?.message : "This page needs the link from the mail."} />
          <Button type="submit" className="w-full" loading={busy} disabled={!token}>
            Accept the invitation
          </Button>
        </form>
      )}
      {backToSignIn}
    </AuthCard>
  );
}

const NO_TOKEN: Outcome = { ok: false, message: "This page needs the link from the mail." };

export function VerifyUser({ token }: { token: string }) {
  const [answer, setAnswer] = useState<Outcome | null>(null);
  const outcome = token ? answer : NO_TOKEN;
  const started = useRef(false);
  useEffect(() => {
    // Once: a token works a single time, and strict mode runs effects twice in development.
    if (started.current || !token) return;
    started.current = true;
    void call("GET", `/api/v1/verify_user?confirmation_token=${encodeURIComponent(token)}`).then(setAnswer);
  }, [token]);
  return (
    <AuthCard title="Verify your email address">
      {outcome ? (
        outcome.ok ? (
          <p role="status" className="text-sm text-slate-700">
            {outcome.message}
          </p>
        ) : (
          <InlineError message={outcome.message} />
        )
      ) : (
        <p className="text-sm text-slate-500">Checking the link…</p>
      )}
      {backToSignIn}
    </AuthCard>
  );
}
