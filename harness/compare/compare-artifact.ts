import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';

/** Writes the artifact as JSON after checking it against schemas/compare.schema.json (a mismatch is a bug here, not bad input). */
export function writeCompareArtifact(path: string, artifact: CompareArtifact): void {
  const validate = validatorFor<CompareArtifact>('compare.schema.json');
  if (!validate(artifact)) throw new Error(`internal error: compare artifact does not match schemas/compare.schema.json: ${formatAjvErrors(validate.errors).join('; ')}`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(artifact, null, 2)}\n`);
}

/** Default artifact path for two report files: `compare-<A>-vs-<B>.json` in `dir` (B's folder unless --out-dir). */
export function artifactPathFor(dir: string, pathA: string, pathB: string): string {
  const stem = (p: string) => basename(p).replace(/\.json$/, '');
  return join(dir, `compare-${stem(pathA)}-vs-${stem(pathB)}.json`);
}
