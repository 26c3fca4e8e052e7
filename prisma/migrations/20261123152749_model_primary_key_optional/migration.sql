-- AlterTable
ALTER TABLE "models" ALTER COLUMN "primary_key" DROP NOT NULL;
