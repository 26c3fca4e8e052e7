import type { Metadata } from "next";
import { MembersPage } from "@/components/settings/members";
import { RequirePermission } from "@/components/shell/require-permission";

export const metadata: Metadata = { title: "Members" };

export default function Page() {
  return (
    <RequirePermission href="/settings/members">
      <MembersPage />
    </RequirePermission>
  );
}
