import type { Metadata } from "next";
import { WebhooksPage } from "@/components/settings/webhooks";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "Webhooks" };

export default function Page() {
  return (
    <RequirePermission href="/settings/webhooks">
      <WebhooksPage />
    </RequirePermission>
  );
}
