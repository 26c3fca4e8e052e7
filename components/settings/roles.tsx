"use client";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, PageHeader } from "@/components/ui/card";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/field";
import { ErrorState, InlineError, LoadingState } from "@/components/ui/states";
import { errorMessage } from "@/lib/api-client/client";
import { useCan, useCreateRole, useDeleteRole, useRoles, useUpdateRole } from "@/lib/api-client/settings";
import type { Policies, Role } from "@/lib/api-client/types";
import { PermissionMatrix } from "./permission-matrix";

export function RolesPage() {
  const roles = useRoles();
  const canCreate = useCan("role", "create");
  const canUpdate = useCan("role", "update");
  const canDelete = useCan("role", "delete");
  const [editing, setEditing] = useState<Role | "new" | null>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const remove = useDeleteRole();

  return (
    <>
      <PageHeader
        title="Roles"
        description="What each role may do. System roles are fixed; admins can create custom roles."
        actions={canCreate ? <Button onClick={() => setEditing("new")}>New role</Button> : null}
      />
      {roles.isLoading ? (
        <LoadingState />
      ) : roles.error ? (
        <ErrorState error={roles.error} onRetry={() => void roles.refetch()} />
      ) : (
        <div className="space-y-4">
          {roles.data?.map((role) => {
            const system = role.attributes.role_type === "system" || role.attributes.workspace_id === null;
            return (
              <Card key={role.id}>
                <CardHeader
                  title={
                    <span className="flex items-center gap-2">
                      {role.attributes.role_name} <Badge tone={system ? "slate" : "indigo"}>{system ? "system" : "custom"}</Badge>
                    </span>
                  }
                  description={role.attributes.role_desc}
                  actions={
                    !system && (
                      <>
                        {canUpdate && <Button size="sm" variant="secondary" onClick={() => setEditing(role)}>Edit</Button>}
                        {canDelete && <DeleteRoleButton role={role} onDelete={() => setDeleting(role)} />}
                      </>
                    )
                  }
                />
                <CardBody>
                  <details>
                    <summary className="cursor-pointer text-sm font-medium text-indigo-700">Permission matrix</summary>
                    <div className="mt-3">
                      <PermissionMatrix policies={role.attributes.policies} caption={`Permissions of ${role.attributes.role_name}`} />
                    </div>
                  </details>
                </CardBody>
              </Card>
            );
          })}
        </div>
      )}
      {editing && <RoleDialog role={editing === "new" ? null : editing} onClose={() => setEditing(null)} />}
      <ConfirmDialog
        open={Boolean(deleting)}
        onClose={() => setDeleting(null)}
        title={`Delete role “${deleting?.attributes.role_name}”?`}
        description="Members with this role must be moved to another role first."
        loading={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting, { onSettled: () => setDeleting(null) })}
      />
    </>
  );
}

const counted = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** Why a role cannot be deleted now (held by members or valid API tokens), or null. */
function inUseReason(role: Role): string | null {
  const use = role.attributes.in_use;
  if (!use || use.members + use.api_tokens === 0) return null;
  const holders = [use.members ? counted(use.members, "member") : "", use.api_tokens ? counted(use.api_tokens, "API token") : ""].filter(Boolean);
  return `In use by ${holders.join(" and ")}: give them another role first.`;
}

/** Delete, disabled with the reason beside it while members or tokens hold the role. */
function DeleteRoleButton({ role, onDelete }: { role: Role; onDelete: () => void }) {
  const reason = inUseReason(role);
  const reasonId = `role-${role.id}-in-use`;
  return (
    <span className="flex items-center gap-2">
      {reason && (
        <span id={reasonId} className="text-xs text-slate-500">
          {reason}
        </span>
      )}
      <Button size="sm" variant="secondary" className="text-red-700" disabled={reason !== null} aria-describedby={reason ? reasonId : undefined} onClick={onDelete}>
        Delete
      </Button>
    </span>
  );
}

function RoleDialog({ role, onClose }: { role: Role | null; onClose: () => void }) {
  const [name, setName] = useState(role?.attributes.role_name ?? "");
  const [desc, setDesc] = useState(role?.attributes.role_desc ?? "");
  const [policies, setPolicies] = useState<Policies>(role?.attributes.policies ?? { permissions: {} });
  const create = useCreateRole();
  const update = useUpdateRole();
  const mutation = role ? update : create;
  const save = () => {
    const body = { role_name: name, role_desc: desc, policies: policies as never };
    if (role) update.mutate({ id: role.id, role: body }, { onSuccess: onClose });
    else create.mutate(body, { onSuccess: onClose });
  };
  return (
    <Dialog
      open
      wide
      onClose={onClose}
      title={role ? `Edit role “${role.attributes.role_name}”` : "New role"}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>Cancel</Button>
          <Button onClick={save} loading={mutation.isPending} disabled={!name.trim()}>Save role</Button>
        </>
      }
    >
      <div className="space-y-4">
        <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
          <Field label="Name" required>{(p) => <Input {...p} value={name} onChange={(e) => setName(e.target.value)} autoFocus />}</Field>
          <Field label="Description">{(p) => <Input {...p} value={desc} onChange={(e) => setDesc(e.target.value)} />}</Field>
        </div>
        <PermissionMatrix policies={policies} onChange={setPolicies} caption="Permissions of the role" />
        <InlineError message={mutation.error ? errorMessage(mutation.error) : null} />
      </div>
    </Dialog>
  );
}
