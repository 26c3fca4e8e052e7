// Bounds of a discovery: the catalog of a warehouse is read page by page from a server the Member
// names, and a hostile one could page forever. Past these a discovery stops where it is and keeps
// what it found (docs/connectors.md "Discovery limits"); narrow it with a schema or database.
/** Streams (tables) kept at most. */
export const MAX_DISCOVERED_STREAMS = 5000;
/** Column rows read at most (information_schema rows, table metadata columns). */
export const MAX_DISCOVERED_COLUMNS = 200_000;
/** Pages (or chunks, partitions) read at most by one discovery listing. */
export const MAX_DISCOVERY_PAGES = 2000;
