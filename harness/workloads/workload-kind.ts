// Which kind a workload directory holds, read before validating it against that kind's schema.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { defaultInputLimits } from '../input-limits.ts';

/** agent: run through the agent loop (workload.schema.json); matrix: recorded outcomes (matrix-workload.schema.json). */
export type WorkloadKind = 'agent' | 'matrix';

/** The kind a directory's workload.yaml declares; `agent` when it has no `kind` (or cannot be read: the agent loader then reports why). */
export function workloadKind(dir: string): WorkloadKind {
  try {
    // An oversized file is not parsed here: the loader refuses it by its size, naming the limit.
    if (statSync(join(dir, 'workload.yaml')).size > defaultInputLimits().limits.workload_file.max_bytes) return 'agent';
    const doc = parse(readFileSync(join(dir, 'workload.yaml'), 'utf8')) as { kind?: unknown } | null;
    return doc?.kind === 'matrix' ? 'matrix' : 'agent';
  } catch {
    return 'agent';
  }
}
