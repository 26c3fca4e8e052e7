import type { Metadata } from "next";
import { AlertsPage } from "@/components/alerts/alerts-page";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "Alerts" };

export default function Page() {
  return (
    <RequirePermission href="/settings/alerts">
      <AlertsPage />
    </RequirePermission>
  );
}
