export * from './rubric.ts';
export * from './heuristic.ts';
export * from './turn-expectations.ts';
export * from './evaluator.ts';
export * from './check.ts';
