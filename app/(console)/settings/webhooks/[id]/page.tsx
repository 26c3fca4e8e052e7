import type { Metadata } from "next";
import { WebhookDetail } from "@/components/settings/webhook-detail";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "Webhook" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <RequirePermission href="/settings/webhooks">
      <WebhookDetail id={id} />
    </RequirePermission>
  );
}
