export { createSimProvider, type SimProviderOptions, type SimRunContext } from './sim-provider.ts';
export { loadSimScript, type SimScript, type SimTurn, type SimPlan, type SimStep } from './sim-script.ts';
export { createTiktokenCounter, type TokenCounter, type TiktokenCounterOptions } from './token-counter.ts';
export { prngFor, prngFromParts, createSfc32, type Prng, type PrngTuple } from './prng.ts';
export { competentProbability, choosePlan, sigmoid, type PlanChoice } from './plan-choice.ts';
export { serializeRequest, type RequestSegment, type SerializedRequest, type WireOrder } from './request-segments.ts';
