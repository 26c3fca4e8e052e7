import type { Metadata } from "next";
import { VerifyUser } from "@/components/auth/account-forms";

export const metadata: Metadata = { title: "Verify email" };
export const dynamic = "force-dynamic";

// The link of a verification mail: /verify-user?confirmation_token=…&email=…
export default async function VerifyUserPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const token = (await searchParams).confirmation_token;
  return <VerifyUser token={typeof token === "string" ? token : ""} />;
}
