export { startLoopbackServer, type LoopbackServer, type LoopbackServerOptions, type RecordedRequest, type ScriptedReply } from './loopback-server.ts';
export { startFakeAnthropic, anthropicMessage, anthropicText, anthropicToolUse, anthropicError, type AnthropicWireUsage } from './anthropic-fake.ts';
export { startFakeOpenAI, openaiCompletion, openaiText, openaiToolCalls, openaiError, type OpenAIWireUsage } from './openai-fake.ts';
