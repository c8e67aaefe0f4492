export * from './routing-metrics.ts';
export * from './arm-metrics.ts';
export * from './cluster-tightness.ts';
export * from './paired-stats.ts';
export * from './student-t.ts';
export * from './solved.ts';
export * from './power.ts';
export * from './two-level.ts';
