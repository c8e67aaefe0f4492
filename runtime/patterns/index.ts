// Public API of the pattern store v1 (pattern-store.md): fingerprints, similarity, the SQLite store and
// the routing slot-4 adapter. Other subsystems import from here only.
export { evidenceKey, neighborEvidence, neighborWeight, scoreCluster, scoreEvidence, scoreExpectedGain, SIMILARITY_BANDWIDTH, type ClusterVerdict, type ModelPriors } from './cluster-scoring.ts';
export {
  COST_PRIOR_STRENGTH,
  costScale,
  gainScore,
  hierarchicalEstimates,
  NEIGHBOR_PRIOR_STRENGTH,
  noEvidence,
  sampleBeta,
  sampleGamma,
  shrink,
  shrinkCost,
  thompsonDraw,
  WORKSPACE_PRIOR_STRENGTH,
  createRegretBudget,
  poolPrior,
  UNSEEN_SPREAD_FALLBACK,
  type ModelEstimate,
  type ModelEvidence,
  type PoolPrior,
  type RegretBudget,
} from './expected-gain.ts';
export { createLearnedScorer, scoreLearned, type LearnedScorer } from './learned-scoring.ts';
export { defaultPromptModelSettings, loadPromptModelSettings } from './prompt-model-settings.ts';
export { compareNeighbors, type NeighborTieKey } from './neighbor-order.ts';
export { PatternSchemaError } from './pattern-db.ts';
export { patternMatchedPayload } from './pattern-events.ts';
export { PATTERN_SCHEMA_VERSION } from './pattern-schema.ts';
export { createPatternRecommender, type PatternRecommenderOptions } from './pattern-recommender.ts';
export { DEFAULT_PATTERN_CAPS } from './pattern-store.ts';
export type {
  ClusterScoring,
  EventContext,
  EvidenceOptions,
  EvictOptions,
  KNearestOptions,
  ModelOption,
  NeighborMatch,
  NeighborSummary,
  PatternCaps,
  PatternExploration,
  PatternRecommendation,
  PatternStore,
  PatternStoreSize,
  RecommendEvidence,
  RecommendOptions,
  RecordInput,
  RecordResult,
  StoredFingerprint,
  StoredOutcome,
  UpdateScoreInput,
} from './pattern-store.ts';
export { SIMILARITY_WEIGHTS, similarity, structuralSimilarity } from './similarity.ts';
export { prepareFeatureList, preparedSimilarity, type PreparedFeatures } from './prepared-similarity.ts';
export { openPatternStore, type PatternStoreOptions } from './sqlite-pattern-store.ts';
export { openMemoryPatternStore, type MemoryPatternStoreOptions } from './memory-pattern-store.ts';
export {
  canonicalFeaturesJson,
  computeStructuralFeatures,
  inputTokensBucket,
  normalizeFeatures,
  structuralSignature,
  freezeFeatures,
  type FingerprintInput,
  type StructuralFeatures,
} from './structural-features.ts';
export { EMPTY_MEAN, welfordAdd, welfordRemove, welfordReplace, type RunningMean } from './welford.ts';
// v2 (pattern-store.md §16): embeddings, the embedding cache, blended similarity.
export { PATTERN_SCHEMA_VERSION_V2 } from './pattern-schema.ts';
export {
  DEFAULT_EMBEDDING_ALPHA,
  applyWorkloadPartition,
  blendScores,
  cosine,
  embeddingsComparable,
  similarityV2,
  type HybridFingerprint,
} from './similarity-v2.ts';
export { DEFAULT_EMBEDDING_CONFIG, upgradeToV2, type EmbeddingConfig, type EmbeddingQuery, type PatternStoreV2 } from './v2-pattern-store.ts';
export * from './embeddings/index.ts';
export { isPatternStoreV2 } from './store-version.ts';
export { fingerprintsOfStore, PatternReadError, readPatternFingerprints, type PatternFingerprints } from './read-fingerprints.ts';
