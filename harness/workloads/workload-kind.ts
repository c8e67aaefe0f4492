// Which kind a workload directory holds, read before validating it against that kind's schema.
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cachedParse } from '../../runtime/core/parsed-file-cache.ts';
import { yamlLib } from '../../runtime/core/yaml-lib.ts';
import { defaultInputLimits } from '../input-limits.ts';

/** agent: run through the agent loop (workload.schema.json); matrix: recorded outcomes (matrix-workload.schema.json). */
export type WorkloadKind = 'agent' | 'matrix';

/** The kind a directory's workload.yaml declares; `agent` when it has no `kind` (or cannot be read: the agent loader then reports why). */
export function workloadKind(dir: string): WorkloadKind {
  try {
    const file = join(dir, 'workload.yaml');
    // An oversized file is not parsed here: the loader refuses it by its size, naming the limit.
    if (statSync(file).size > defaultInputLimits().limits.workload_file.max_bytes) return 'agent';
    return kindOfText(resolve(file), readFileSync(file, 'utf8'));
  } catch {
    return 'agent';
  }
}

/** The kind the text of the workload.yaml at `file` (absolute) declares, for a caller that has read it; `agent` when it cannot be parsed. */
export function kindOfText(file: string, text: string): WorkloadKind {
  // A file that never spells `kind` has no kind key: agent, without parsing (bench list reads every workload).
  if (!text.includes('kind')) return 'agent';
  try {
    // Kept in the parsed-file cache (when dist/ is fresh) so a reader of workloads need not load the YAML parser.
    return cachedParse<WorkloadKind>('workload-kind', file, () => ((yamlLib().parse(text) as { kind?: unknown } | null)?.kind === 'matrix' ? 'matrix' : 'agent'));
  } catch {
    return 'agent';
  }
}
