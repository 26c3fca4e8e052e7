"use client";
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/field";
import { InlineError } from "@/components/ui/states";
import { errorMessage, fieldErrors } from "@/lib/api-client/client";
import { useConsole } from "@/lib/api-client/provider";
import { useChangePassword } from "@/lib/api-client/settings";
import { changePasswordSchema } from "@/lib/validation/auth";

export function PasswordPage() {
  const { signOutNow } = useConsole();
  const change = useChangePassword();
  const form = useForm({
    resolver: zodResolver(changePasswordSchema),
    defaultValues: { current_password: "", password: "" },
  });
  const { errors } = form.formState;
  // Every session ends with the change, so the console signs out and asks for the new password.
  const submit = form.handleSubmit((values) =>
    change.mutate(values, { onSuccess: () => void signOutNow({ sessionEnded: true }) }),
  );
  const server = change.error ? fieldErrors(change.error) : {};
  const general = change.error && Object.keys(server).length === 0 ? errorMessage(change.error) : null;
  return (
    <>
      <PageHeader title="Password" description="Change the password you sign in with." />
      <Card className="max-w-lg">
        <CardHeader
          title="Change password"
          description="You will be signed out everywhere, this browser included, and sign in again with the new password. Every API token of your account is revoked too."
        />
        <CardBody>
          <form onSubmit={submit} noValidate className="space-y-4">
            <Field
              label="Current password"
              required
              error={
                errors.current_password?.message
                  ? `Current password ${errors.current_password.message}`
                  : server.current_password && `Current password ${server.current_password}`
              }
            >
              {(p) => (
                <Input
                  {...p}
                  type="password"
                  autoComplete="current-password"
                  {...form.register("current_password")}
                />
              )}
            </Field>
            <Field
              label="New password"
              required
              hint="At least 8 characters, and not easy to guess: a few uncommon words work well."
              error={
                errors.password?.message
                  ? `New password ${errors.password.message}`
                  : server.password && `New password ${server.password}`
              }
            >
              {(p) => (
                <Input {...p} type="password" autoComplete="new-password" {...form.register("password")} />
              )}
            </Field>
            <InlineError message={general} />
            <div className="flex justify-end">
              <Button type="submit" loading={change.isPending}>
                Change password
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
    </>
  );
}
