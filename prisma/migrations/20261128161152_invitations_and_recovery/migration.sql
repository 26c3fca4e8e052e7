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
-- person accepts it through the link mailed to them. Memberships made before had access from the
-- start (their members simply had not used them yet): they stay usable.
UPDATE "workspace_users" SET "joined_at" = "created_at" WHERE "joined_at" IS NULL;
