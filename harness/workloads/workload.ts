import type { Workload as WorkloadSpec } from '../../schemas/types/workload.ts';

export type { WorkloadSpec };

/** A workload on disk: its validated spec and where its parts live. */
export interface Workload {
  spec: WorkloadSpec;
  dir: string;
  /** The fixture the agent sees; copied per run. */
  workspaceDir: string;
  /** Hidden check files, copied in only after the last turn; null when absent. */
  checkDir: string | null;
  /** The simulated provider's script; null when absent (sim runs then fail with exit 2). */
  simScriptPath: string | null;
}

/** Where the hidden check files land inside the workspace copy after the last turn. */
export const CHECK_MOUNT = '.bench-check';
