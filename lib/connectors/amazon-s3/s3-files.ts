// The file layer's RemoteFiles over an S3 bucket: ListObjectsV2 (paged), GetObject as a stream,
// uploads through @aws-sdk/lib-storage (one PUT for small files, a multipart upload for large ones).
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { RemoteEntry, RemoteFiles, UploadResult } from "../files/remote-files";

export class S3Files implements RemoteFiles {
  readonly urlPrefix: string;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    readonly root: string,
  ) {
    this.urlPrefix = `s3://${bucket}/`;
  }

  async list(prefix: string, limit: number, signal?: AbortSignal): Promise<RemoteEntry[]> {
    const out: RemoteEntry[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ContinuationToken: token,
          MaxKeys: Math.min(1000, limit - out.length),
        }),
        { abortSignal: signal },
      );
      for (const o of page.Contents ?? []) {
        // Keys ending in `/` are the console's folder markers, not files.
        if (o.Key && !o.Key.endsWith("/")) out.push({ key: o.Key, size: o.Size ?? 0, modified: o.LastModified });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token && out.length < limit);
    return out;
  }

  async download(entry: RemoteEntry, signal?: AbortSignal): Promise<Readable> {
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: entry.key }), {
      abortSignal: signal,
    });
    const body = object.Body;
    if (body instanceof Readable) return body;
    throw new Error(`S3 returned no readable body for ${entry.key}.`);
  }

  async upload(localPath: string, key: string, contentType: string, signal?: AbortSignal): Promise<UploadResult> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: createReadStream(localPath), ContentType: contentType },
      queueSize: 2,
    });
    const abort = () => void upload.abort();
    signal?.addEventListener("abort", abort, { once: true });
    try {
      const done = await upload.done();
      return { key, detail: `ETag ${done.ETag ?? "(none)"}${done.VersionId ? `, version ${done.VersionId}` : ""}` };
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }
}
