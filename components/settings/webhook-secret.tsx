"use client";
// The one time a signing secret is shown (after create and rotate), with how receivers use it.
import { Button } from "@/components/ui/button";
import { Dialog } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";

export function WebhookSecretDialog({ secret, onClose }: { secret: string; onClose: () => void }) {
  const toast = useToast();
  return (
    <Dialog
      open
      onClose={onClose}
      title="Copy the signing secret"
      description="This is the only time it is shown. Your endpoint checks the Datasync-Signature header with it (see docs/webhooks.md)."
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <label htmlFor="webhook-secret" className="sr-only">Signing secret</label>
      <input
        id="webhook-secret"
        readOnly
        value={secret}
        className="w-full rounded-md border border-slate-300 bg-slate-50 p-2 font-mono text-xs"
        onFocus={(e) => e.currentTarget.select()}
      />
      <Button
        className="mt-2"
        variant="secondary"
        size="sm"
        onClick={() => void navigator.clipboard?.writeText(secret).then(() => toast.success("Secret copied."), () => toast.error("Copy failed; select the text and copy it."))}
      >
        Copy to clipboard
      </Button>
    </Dialog>
  );
}
