// The file layer (see remote-files.ts): what file connectors (AmazonS3, Sftp, GoogleDrive) import.
export type { RemoteEntry, RemoteFiles, UploadResult } from "./remote-files";
export { globToRegExp, isGlob, listPrefix, matchesGlob } from "./glob";
export { planAll, planQuery, safeKey, MAX_LISTED, type FilePlan, type PlannedFile } from "./plan";
export { fetchCopies, makeCopiesDir, TEMP_PREFIX, type LocalCopies } from "./fetch";
export {
  ALL_EXTENSIONS,
  FILE_EXTENSIONS,
  describeFileError,
  discoverFiles,
  queryFiles,
  readFiles,
  readFilesFingerprinted,
  type DuckLimits,
} from "./query";
export { CONTENT_TYPES, csvColumns, writeRowsFile, type WriteFormat, type WrittenFile } from "./write";
export { LocalFiles } from "./local-files";
