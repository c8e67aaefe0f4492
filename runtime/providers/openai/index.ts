export { createOpenAIProvider, COMPATIBLE_DEFAULT_CAPABILITIES, OPENAI_BASE_URL, type OpenAIProviderOptions } from './openai-provider.ts';
export { toOpenAIParams, systemText, TOOL_ERROR_PREFIX, type OpenAIWireOptions } from './openai-request.ts';
export { fromOpenAICompletion, openAIUsage, type OpenAIResult } from './openai-response.ts';
export { INVALID_ARGUMENTS_KEY, invalidToolArguments, parseToolArguments, serializeToolArguments } from './tool-arguments.ts';
