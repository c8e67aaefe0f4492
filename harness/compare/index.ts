// Public API of `bench compare` (harness-and-runtime.md §8.4).
export { compareReports, COMPARE_METHOD, DEFAULT_CONFIDENCE, type CompareInput, type CompareOptions } from './compare-reports.ts';
export { judgeTightness, tightnessVerdict, REQUIRED_INTER_DROP, REQUIRED_INTRA_GAIN } from '../metrics/tightness-verdict.ts';
export { renderCompareTable, verdictLine } from './render-compare.ts';
export { compareRuns, loadRunsSummary, pairSeeds, COMPARE_RUNS_METHOD, type RunsInput } from './compare-runs.ts';
export { artifactPathFor, writeCompareArtifact } from './compare-artifact.ts';
export {
  abRunDir,
  runFingerprintAb,
  withFingerprint,
  DEFAULT_EMBEDDING_PROVIDER,
  type FingerprintAbOptions,
  type FingerprintAbResult,
  type FingerprintArmOptions,
  type FingerprintVersion,
  type RunSuiteFn,
  type SharedRunOptions,
} from './fingerprint-ab.ts';
