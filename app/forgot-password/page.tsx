import type { Metadata } from "next";
import { ForgotPasswordForm } from "@/components/auth/account-forms";
import { sendsMail } from "@/lib/settings/console-url";

export const metadata: Metadata = { title: "Forgot password" };
// Whether mail goes out is the running server's setting (SMTP_URL), not the build's.
export const dynamic = "force-dynamic";

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm sendsMail={sendsMail()} />;
}
