import type { Metadata } from "next";
import { MembersPage } from "@/components/settings/members";
import { RequirePermission } from "@/components/shell/require-permission";
import { sendsMail } from "@/lib/settings/console-url";

export const metadata: Metadata = { title: "Members" };
// Whether invitations are mailed is the running server's setting (SMTP_URL), not the build's.
export const dynamic = "force-dynamic";

export default function Page() {
  return (
    <RequirePermission href="/settings/members">
      <MembersPage sendsMail={sendsMail()} />
    </RequirePermission>
  );
}
