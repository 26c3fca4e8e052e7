import type { Metadata } from "next";
import { ApiTokensPage } from "@/components/settings/api-tokens";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "API tokens" };

export default function Page() {
  return (
    <RequirePermission href="/settings/api-tokens">
      <ApiTokensPage />
    </RequirePermission>
  );
}
