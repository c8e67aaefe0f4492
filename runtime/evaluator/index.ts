export * from './rubric.ts';
export * from './heuristic.ts';
export * from './gate.ts';
export * from './turn-expectations.ts';
export * from './evaluator.ts';
export * from './check.ts';
export * from './llm-judge.ts';
export * from './judge-prompt.ts';
