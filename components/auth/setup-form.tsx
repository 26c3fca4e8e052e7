"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { setupSchema } from "@/lib/validation/setup";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/field";
import { InlineError, LoadingState } from "@/components/ui/states";
import { AuthCard } from "./auth-card";

export function SetupForm() {
  const router = useRouter();
  const [state, setState] = useState<"checking" | "open" | "done">("checking");
  const [error, setError] = useState<string | null>(null);
  const form = useForm({
    resolver: zodResolver(setupSchema),
    defaultValues: { name: "", email: "", password: "", workspace_name: "Default workspace" },
  });
  const { errors, isSubmitting } = form.formState;

  useEffect(() => {
    fetch("/api/v1/setup", { cache: "no-store" })
      .then((r) => r.json())
      .then((body) => setState(body?.data?.needs_setup ? "open" : "done"))
      .catch(() => setState("open"));
  }, []);

  const onSubmit = form.handleSubmit(async (values) => {
    setError(null);
    const res = await fetch("/api/v1/setup", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(values),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      if (res.status === 409) setState("done");
      setError(body.message ?? `Setup failed (HTTP ${res.status}).`);
      return;
    }
    const signedIn = await signIn("credentials", { email: values.email, password: values.password, redirect: false });
    router.replace(signedIn?.ok ? "/dashboard" : "/login");
    router.refresh();
  });

  if (state === "checking") return <LoadingState />;
  if (state === "done") {
    return (
      <AuthCard title="Setup is complete" subtitle="An administrator already exists.">
        <InlineError message={error} />
        <Link href="/login" className="mt-4 inline-block text-sm font-medium text-indigo-600 hover:underline">
          Go to sign in →
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Welcome to Datasync" subtitle="Create the first administrator account. You can invite others afterwards.">
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        <Field label="Your name" error={errors.name && `Name ${errors.name.message}`} required>
          {(p) => <Input {...p} autoComplete="name" autoFocus {...form.register("name")} />}
        </Field>
        <Field label="Email" error={errors.email && `Email ${errors.email.message}`} required>
          {(p) => <Input {...p} type="email" autoComplete="username" {...form.register("email")} />}
        </Field>
        <Field label="Password" hint="At least 8 characters." error={errors.password && `Password ${errors.password.message}`} required>
          {(p) => <Input {...p} type="password" autoComplete="new-password" {...form.register("password")} />}
        </Field>
        <Field label="Workspace name" error={errors.workspace_name && `Workspace name ${errors.workspace_name.message}`}>
          {(p) => <Input {...p} {...form.register("workspace_name")} />}
        </Field>
        <InlineError message={error} />
        <Button type="submit" className="w-full" loading={isSubmitting}>
          Create administrator
        </Button>
      </form>
    </AuthCard>
  );
}
