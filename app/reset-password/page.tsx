import type { Metadata } from "next";
import { ResetPasswordForm } from "@/components/auth/account-forms";

export const metadata: Metadata = { title: "Reset password" };
export const dynamic = "force-dynamic";

// The link of a reset mail: /reset-password?reset_password_token=…
export default async function ResetPasswordPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const token = (await searchParams).reset_password_token;
  return <ResetPasswordForm token={typeof token === "string" ? token : ""} />;
}
