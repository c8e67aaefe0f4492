// Coverage of the headline's intervals on synthetic populations (issue 23 item 4), as JSON figures:
// CR2 / Bell–McCaffrey against the former CR1 with 15 unequal workloads, and the two-level interval over runs
// against one run's own interval. Deterministic (seeded); the same designs as harness/metrics/two-level.test.ts.
// Run: npx tsx scripts/stats/coverage.ts
import { clusteredCoverage, twoLevelCoverage } from '../../harness/metrics/coverage-simulation.ts';

const clustered = clusteredCoverage({ seed: 23, draws: 4000, sizes: [30, 20, 10, 5, 5, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1], sdCluster: 1, sdUnit: 1, firstClusterScale: 3 });
const twoLevel = [3, 5].map((runs) => ({ runs, ...twoLevelCoverage({ seed: 23, draws: 1000, workloads: 15, runs, reps: 3, sdWorkload: 1, sdRun: 0.5, sdUnit: 1 }) }));
console.log(JSON.stringify({ clustered_15_unequal_workloads: clustered, two_level_15_workloads_3_reps: twoLevel }, null, 2));
