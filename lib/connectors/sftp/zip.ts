// A one-file ZIP archive (PKWARE APPNOTE 6.3: local header, deflated data, central directory, end
// record), for the destination's compression_type `zip`. Node ships deflate and CRC-32 but no ZIP
// container; the entry is at most the destination's batch file, far below ZIP64's 4 GiB.
import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32, createDeflateRaw } from "node:zlib";

const LIMIT = 0xffffffff;

/** MS-DOS time and date of `d` (local fields, as ZIP tools read them). */
function dosDateTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

/** Writes `zipPath` holding `sourcePath` as the entry `entryName`, deflated. */
export async function zipOneFile(sourcePath: string, entryName: string, zipPath: string, now = new Date()): Promise<void> {
  const size = (await stat(sourcePath)).size;
  if (size >= LIMIT) throw new Error("The file is too large for a ZIP archive without ZIP64.");
  const name = Buffer.from(entryName, "utf8");
  const { time, date } = dosDateTime(now);
  // Bit 3: sizes and CRC follow the data (a data descriptor), so the data streams in one pass.
  // Bit 11: the name is UTF-8.
  const flags = 0x0008 | 0x0800;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(time, 10);
  local.writeUInt16LE(date, 12);
  local.writeUInt16LE(name.length, 26);

  let crc = 0;
  let compressed = 0;
  const checksum = new Transform({
    transform(chunk: Buffer, _enc, done) {
      crc = crc32(chunk, crc);
      done(null, chunk);
    },
  });
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      compressed += chunk.length;
      done(null, chunk);
    },
  });
  const out = createWriteStream(zipPath, { flags: "wx", mode: 0o600 });
  out.write(Buffer.concat([local, name]));
  await pipeline(createReadStream(sourcePath), checksum, createDeflateRaw(), counter, out, { end: false });
  if (compressed >= LIMIT) throw new Error("The compressed file is too large for a ZIP archive without ZIP64.");

  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(size, 12);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(time, 12);
  central.writeUInt16LE(date, 14);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
  central.writeUInt32LE(0, 42); // the local header's offset

  const centralOffset = local.length + name.length + compressed + descriptor.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(centralOffset, 16);

  await new Promise<void>((resolve, reject) => {
    out.once("error", reject);
    out.end(Buffer.concat([descriptor, central, name, end]), () => resolve());
  });
}
