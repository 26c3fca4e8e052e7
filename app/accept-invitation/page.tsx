import type { Metadata } from "next";
import { AcceptInvitationForm } from "@/components/auth/account-forms";

export const metadata: Metadata = { title: "Accept the invitation" };
export const dynamic = "force-dynamic";

// The link of an invitation mail: /accept-invitation?invitation_token=…[&new_account=1]
export default async function AcceptInvitationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { invitation_token: token, new_account: newAccount } = await searchParams;
  return <AcceptInvitationForm token={typeof token === "string" ? token : ""} newAccount={newAccount === "1"} />;
}
