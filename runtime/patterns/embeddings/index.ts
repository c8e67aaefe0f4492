// Public API of the v2 embedding layer (pattern-store.md §16.2, §16.4).
export { createCohereEmbeddingProvider, type CohereEmbeddingOptions } from './cohere-provider.ts';
export { createEmbeddingProvider, type EmbeddingProviderContext } from './create-embedding-provider.ts';
export { createDeterministicProvider, deterministicEmbed } from './deterministic-provider.ts';
export { createEmbeddingCache, DEFAULT_EMBEDDING_CACHE_LIMITS, textSha256, type EmbeddingCache, type EmbeddingCacheLimits, type EmbeddingCacheStats } from './embedding-cache.ts';
export { assertEmbeddingProvider, dot, EmbeddingProviderError, l2Normalize, packVector, reportedTokens, unpackVector, type EmbeddingProvider, type EmbedResult } from './embedding-provider.ts';
export { createHashingProvider, fnv1a32, hashingEmbed } from './hashing-provider.ts';
export { createOpenAIEmbeddingProvider, type OpenAIEmbeddingOptions } from './openai-provider.ts';
export { createVectorMatrix, type VectorMatrix } from './vector-matrix.ts';
export { checkTransformersSetup, createTransformersEmbeddingProvider, TRANSFORMERS_PACKAGE, type TransformersSetup } from './transformers-provider.ts';
export { createUseLiteProvider, loadUseLiteModel, USE_LITE_DIM, USE_LITE_MAX_CHARS, USE_LITE_PACKAGES, USE_LITE_PROVIDER_ID } from './use-lite-provider.ts';
