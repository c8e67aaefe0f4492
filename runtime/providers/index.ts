export { DEFAULT_REQUEST_TIMEOUT_MS, ProviderError, type Provider, type ProviderCapabilities, type ProviderErrorClass } from './provider.ts';
export * from './sim/index.ts';
export * from './anthropic/index.ts';
export * from './openai/index.ts';
export { classifyError, classifyStatus, redactSecrets, toProviderError, RETRYABLE_CLASSES, type ProviderErrorContext } from './errors.ts';
export { backoff, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
export {
  withRetries,
  retryAfterMs,
  resolveRetryPolicy,
  timerSleep,
  MAX_RETRY_AFTER_MS,
  type Sleep,
  type RetryOptions,
  type RetryPolicy,
  type RetryNotice,
  type HeaderLookup,
} from './retry.ts';
export { cappedFetch, MAX_RESPONSE_BYTES, ResponseTooLargeError, responseTooLargeIn, type FetchLike } from './response-cap.ts';
export { malformedResponse } from './malformed-response.ts';
