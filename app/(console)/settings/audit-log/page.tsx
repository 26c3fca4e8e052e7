import type { Metadata } from "next";
import { AuditLogPage } from "@/components/settings/audit-log";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "Audit log" };

export default function Page() {
  return (
    <RequirePermission href="/settings/audit-log">
      <AuditLogPage />
    </RequirePermission>
  );
}
