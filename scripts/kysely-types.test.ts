import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kyselyTypes, readPrismaSchema } from "./kysely-types";

const SAMPLE = `
generator client {
  provider = "prisma-client" // a comment
}

enum Mood {
  happy
  sad

  @@map("mood")
}

model Owner {
  id        Int      @id @default(autoincrement())
  pets      Pet[]
  @@map("owners")
}

model Pet {
  id        BigInt   @id @default(autoincrement())
  ownerId   Int      @map("owner_id")
  owner     Owner    @relation(fields: [ownerId], references: [id])
  nickname  String?
  mood      Mood     @default(happy)
  tags      String[]
  data      Json?
  updatedAt DateTime @updatedAt @map("updated_at") @db.Timestamptz(3)
  @@index([ownerId])
  @@map("pets")
}
`;

describe("readPrismaSchema", () => {
  it("reads tables and columns by their database names, with nullability, lists and defaults", () => {
    const schema = readPrismaSchema(SAMPLE);
    expect(schema.enums).toEqual([{ name: "Mood", dbName: "mood", values: ["happy", "sad"] }]);
    const pet = schema.models.find((m) => m.name === "Pet");
    expect(pet?.table).toBe("pets");
    const types = kyselyTypes(schema);
    expect(types).toContain('export type Mood = "happy" | "sad";');
    expect(types).toContain("export interface PetTable {\n  id: Generated<bigint>;\n  owner_id: number;\n  nickname: string | null;\n  mood: Generated<Mood>;\n  tags: string[] | null;\n  data: Json | null;\n  updated_at: Generated<Date>;\n}");
    expect(types).toContain("  owners: OwnerTable;\n  pets: PetTable;\n}");
    expect(types).not.toContain("owner:");
  });

  it("refuses what it does not understand rather than guess a type", () => {
    expect(() => readPrismaSchema("model A {\n  id Int @id\n  x Unsupported(\"tsvector\")\n}")).toThrow(/field/);
    expect(() => readPrismaSchema("model A {\n  id Int @id\n  x Money\n}")).toThrow(/Money/);
    expect(() => readPrismaSchema("view V {\n  id Int\n}")).toThrow(/not supported/);
    expect(() => readPrismaSchema("model A {\n  id Int @id\n")).toThrow(/not closed/);
  });

  it("reads the project's schema", () => {
    const schema = readPrismaSchema(readFileSync("prisma/schema.prisma", "utf8"));
    expect(schema.models.length).toBeGreaterThan(20);
    expect(schema.models.find((m) => m.name === "SyncRun")?.table).toBe("sync_runs");
  });
});
