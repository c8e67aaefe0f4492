// Public API of the SQLite trace store; other subsystems import from here only.
export { openTraceStore, sessionEventsOf, type EventsOfTypeOptions, type TimeWindow, type TraceStore, type TraceStoreOptions } from './trace-store.ts';
export { TraceStoreError } from './errors.ts';
export { READABLE_TRACE_SCHEMA_VERSIONS, TRACE_SCHEMA_VERSION } from './schema.ts';
export { assertReadableTraceDb, damagedTraceDbError, walFolderError, QUICK_CHECK_MAX_BYTES } from './check-trace-db.ts';
export { traceReadPragmas } from './read-pragmas.ts';
