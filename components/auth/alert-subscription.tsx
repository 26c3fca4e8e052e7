"use client";
// The console ends of the alert mail links: confirm an address (sent to addresses that are not
// members), and unsubscribe (in every alert mail). Each acts only on a button press, never on page
// load: mail scanners open links on their own, and must neither confirm nor unsubscribe anyone.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/states";
import { AuthCard } from "./auth-card";

const TEXTS = {
  confirm: {
    title: "Confirm alert mails",
    intro: "A Datasync workspace wants to send its alert mails to this address. Confirm only if you want them; each mail has a link to stop them.",
    button: "Yes, send me these alerts",
  },
  unsubscribe: {
    title: "Stop alert mails",
    intro: "Stop the alert mails of this Datasync workspace to this address, for good.",
    button: "Unsubscribe",
  },
} as const;

export function AlertSubscriptionLink({ action, token }: { action: "confirm" | "unsubscribe"; token: string }) {
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const text = TEXTS[action];
  async function submit() {
    setBusy(true);
    try {
      const res = await fetch(`/api/v1/alert_subscriptions/${action}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token }),
        cache: "no-store",
      });
      const json = await res.json().catch(() => null);
      setOutcome({ ok: res.ok, message: res.ok ? (json?.data?.attributes?.message ?? "Done.") : (json?.message ?? "Something went wrong. Try again.") });
    } catch {
      setOutcome({ ok: false, message: "The server could not be reached. Try again." });
    }
    setBusy(false);
  }
  return (
    <AuthCard title={text.title}>
      {!token ? (
        <InlineError message="This link has no token: open the link from the mail as it is." />
      ) : outcome?.ok ? (
        <p role="status" className="text-sm text-slate-700">
          {outcome.message}
        </p>
      ) : (
        <div className="space-y-4">
          <p className="text-sm text-slate-700">{text.intro}</p>
          <InlineError message={outcome?.message ?? null} />
          <Button onClick={() => void submit()} loading={busy}>
            {text.button}
          </Button>
        </div>
      )}
    </AuthCard>
  );
}
