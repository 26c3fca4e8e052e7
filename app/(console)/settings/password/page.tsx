import type { Metadata } from "next";
import { PasswordPage } from "@/components/settings/password";

export const metadata: Metadata = { title: "Password" };

export default function Page() {
  return <PasswordPage />;
}
