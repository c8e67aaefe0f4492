import {
  ATTR_ERROR_TYPE,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_EVALUATION_EXPLANATION,
  ATTR_GEN_AI_EVALUATION_NAME,
  ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  EVENT_GEN_AI_EVALUATION_RESULT,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '@opentelemetry/semantic-conventions/incubating';

/**
 * The GenAI semantic-convention version every export emits: OpenTelemetry semantic conventions
 * v1.41.0 (gen_ai.*, status Development), as generated into @opentelemetry/semantic-conventions 1.45.0.
 * Pinned because the conventions still move (the GenAI group left the core repo for
 * open-telemetry/semantic-conventions-genai, and token usage attributes are due to move again).
 */
export const SEMCONV_VERSION = '1.41.0';

/** The schema URL of the pinned version, on the resource and the instrumentation scope. */
export const SEMCONV_SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}`;

/** The instrumentation scope name of every exported span. */
export const SCOPE_NAME = 'metis-bench';

/** Convention attribute names, all taken from the official package so a rename shows up as a type error. */
export const GEN_AI = {
  operation: ATTR_GEN_AI_OPERATION_NAME,
  provider: ATTR_GEN_AI_PROVIDER_NAME,
  requestModel: ATTR_GEN_AI_REQUEST_MODEL,
  responseModel: ATTR_GEN_AI_RESPONSE_MODEL,
  responseId: ATTR_GEN_AI_RESPONSE_ID,
  finishReasons: ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  inputTokens: ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  outputTokens: ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  cacheReadTokens: ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  cacheCreationTokens: ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
  agentName: ATTR_GEN_AI_AGENT_NAME,
  conversationId: ATTR_GEN_AI_CONVERSATION_ID,
  workflowName: ATTR_GEN_AI_WORKFLOW_NAME,
  toolName: ATTR_GEN_AI_TOOL_NAME,
  toolCallId: ATTR_GEN_AI_TOOL_CALL_ID,
  toolType: ATTR_GEN_AI_TOOL_TYPE,
  toolArguments: ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  toolResult: ATTR_GEN_AI_TOOL_CALL_RESULT,
  inputMessages: ATTR_GEN_AI_INPUT_MESSAGES,
  outputMessages: ATTR_GEN_AI_OUTPUT_MESSAGES,
  evalName: ATTR_GEN_AI_EVALUATION_NAME,
  evalScore: ATTR_GEN_AI_EVALUATION_SCORE_VALUE,
  evalLabel: ATTR_GEN_AI_EVALUATION_SCORE_LABEL,
  evalExplanation: ATTR_GEN_AI_EVALUATION_EXPLANATION,
  errorType: ATTR_ERROR_TYPE,
  serviceName: ATTR_SERVICE_NAME,
  serviceVersion: ATTR_SERVICE_VERSION,
} as const;

/** `gen_ai.operation.name` values used. */
export const OPERATION = {
  workflow: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
  agent: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  chat: GEN_AI_OPERATION_NAME_VALUE_CHAT,
  tool: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} as const;

/** The span event carrying an evaluator's verdict. */
export const EVALUATION_EVENT = EVENT_GEN_AI_EVALUATION_RESULT;

/** The span event carrying a turn's routing decision (no convention exists for it). */
export const ROUTE_EVENT = 'metis.route.decided';

/**
 * The custom attributes, each with its meaning (docs/cli.md lists them). Everything not in the GenAI
 * convention lives under `metis.`; money is a decimal string so no float rounds a cost.
 */
export const METIS_ATTRIBUTES: Readonly<Record<string, string>> = {
  'metis.run_id': 'the bench run id (resource and run span)',
  'metis.protocol': 'the run protocol: single, a3, signal',
  'metis.simulated': 'true when the built-in simulated provider answered (not a real model)',
  'metis.pricing_version': 'the price table version the costs come from',
  'metis.workload': 'the workload of a rep',
  'metis.pass': 'the pass of a rep (single, A, B, C, D, C-oos)',
  'metis.rep': 'the rep index within (workload, pass)',
  'metis.outcome': 'the gated verdict: solved, unsolved, check_error, not_reached',
  'metis.error_class': 'why the rep could not finish, when it could not',
  'metis.session_id': 'the runtime session of the span (workers have their own)',
  'metis.worker': 'true on the turns of a delegated worker session',
  'metis.turn.id': 'the turn id',
  'metis.turn.index': '0-based turn index within its session',
  'metis.turn.stop_reason': 'how the turn ended',
  'metis.provider': 'the provider that served the call (sim, anthropic, openai, cassette)',
  'metis.cost_usd': 'cost of the call (chat) or of the spans below (run, rep, turn) in USD, as a decimal string (exact, never a float)',
  'metis.usage.uncached_input_tokens': 'input tokens read neither from nor into the prompt cache (gen_ai.usage.input_tokens includes both)',
  'metis.cache_tier': 'the semantic-cache tier that answered instead of a model (--cache on)',
  'metis.latency_ms': 'latency the runtime measured (for the sim: its virtual latency)',
  'metis.tool.side_effects': 'none, read, write, execute or network',
  'metis.tool.success': 'whether the tool did its job',
  'metis.route.chosen_model': 'the model the routing chain chose',
  'metis.route.winner_index': 'the slot of the chain that decided',
  'metis.route.policies': 'the chain slots in order',
  'metis.route.verdicts': "each slot's verdict (not_applicable, deferred, rejected, chose), in chain order",
  'metis.route.candidates': "each slot's candidate model ('' for none), in chain order",
  'metis.route.reasons': "each slot's reason, in chain order",
  'metis.eval.confidence': 'the evaluator confidence of a verdict',
  'metis.user_message': 'the user message of a turn (only with --include-content)',
};
