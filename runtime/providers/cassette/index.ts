export { createRecordingProvider, createReplayProvider, CassetteMissError, type CassetteEntry } from './cassette.ts';
export { requestKey } from './request-key.ts';
