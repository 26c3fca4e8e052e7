-- CreateEnum
CREATE TYPE "account_token_purpose" AS ENUM ('reset_password', 'confirm_email');

-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "description" TEXT,
ADD COLUMN     "region" TEXT;

-- AlterTable
ALTER TABLE "users" ADD COLUMN     "confirmed_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP;

-- Every user that exists before self sign-up (first admin, seeded, invited) counts as verified.
UPDATE "users" SET "confirmed_at" = "created_at";

-- CreateTable
CREATE TABLE "account_tokens" (
    "id" SERIAL NOT NULL,
    "user_id" INTEGER NOT NULL,
    "purpose" "account_token_purpose" NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "account_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "account_tokens_token_hash_key" ON "account_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "account_tokens_user_id_purpose_idx" ON "account_tokens"("user_id", "purpose");

-- AddForeignKey
ALTER TABLE "account_tokens" ADD CONSTRAINT "account_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
