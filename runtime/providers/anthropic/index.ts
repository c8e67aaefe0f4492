export { createAnthropicProvider, ANTHROPIC_BASE_URL, type AnthropicProviderOptions } from './anthropic-provider.ts';
export { toAnthropicParams, type AnthropicWireParams } from './anthropic-request.ts';
export { fromAnthropicMessage, anthropicUsage, type AnthropicResult } from './anthropic-response.ts';
