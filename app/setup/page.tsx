import type { Metadata } from "next";
import { SetupForm } from "@/components/auth/setup-form";

export const metadata: Metadata = { title: "First-run setup" };

export default function SetupPage() {
  return <SetupForm />;
}
