export * from './routing-metrics.ts';
export * from './arm-metrics.ts';
export * from './cluster-tightness.ts';
