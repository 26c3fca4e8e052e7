-- AlterEnum
ALTER TYPE "account_token_purpose" ADD VALUE 'accept_invitation';

-- AlterTable
ALTER TABLE "api_tokens" ADD COLUMN     "parent_id" INTEGER;

-- AlterTable
ALTER TABLE "account_tokens" ADD COLUMN     "membership_id" INTEGER;

-- CreateIndex
CREATE INDEX "api_tokens_parent_id_idx" ON "api_tokens"("parent_id");

-- CreateIndex
CREATE INDEX "account_tokens_membership_id_idx" ON "account_tokens"("membership_id");

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "api_tokens"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_membership_id_fkey" FOREIGN KEY ("membership_id") REFERENCES "workspace_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- From now on a membership with no joined_at is a pending invitation that gives no access until the
-- person accepts it through the link mailed to them. Until now joined_at stayed empty only until the
-- invited person first used the workspace, and whoever invited them chose their password: such
-- memberships stay pending (an Admin sees them as pending and invites again, which mails a link), so
-- an account someone else pre-registered cannot walk into a workspace that invited the address later.
-- An account all of whose memberships are unused has never been used: its password is the inviter's,
-- so it is cleared (the owner sets one through the next invitation's link or Forgot password), and
-- its sessions and API tokens end.
WITH never_used AS (
  SELECT wu.user_id FROM "workspace_users" wu
  GROUP BY wu.user_id
  HAVING bool_and(wu.joined_at IS NULL)
)
UPDATE "users" u SET "password_hash" = '', "password_changed_at" = now()
  FROM never_used n WHERE u.id = n.user_id;

UPDATE "api_tokens" t SET "revoked_at" = now()
  WHERE t."revoked_at" IS NULL
    AND t."user_id" IN (SELECT user_id FROM "workspace_users" GROUP BY user_id HAVING bool_and(joined_at IS NULL));
