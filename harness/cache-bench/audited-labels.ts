// The audited labelling of GPTCache's pairs: merges of pairs that state the same facts, read from
// workloads/cache-gptcache/equivalent-pairs.yaml. GPTCache's own labels stay the primary figures; these
// only say which of their "wrong" hits served another pair's equivalent text.
import { validatorFor } from '../../runtime/core/schemas.ts';
import { loadYamlValidated } from '../../runtime/core/yaml-document.ts';
import type { GptCacheEquivalences } from '../../schemas/types/gptcache-equivalences.ts';
import { SetupError } from '../errors.ts';

/** Which labels a GPTCache stream is scored under. */
export type StreamLabels = 'gptcache' | 'audited';
export const STREAM_LABELS: readonly StreamLabels[] = ['gptcache', 'audited'];

/**
 * Reads `file` and returns one group of pair indices per merge. Every quoted text must be the origin or
 * similar of every pair listed beside it, so an entry cannot silently drift from the data it audits.
 */
export function loadAuditedMerges(file: string, pairs: readonly { origin: string; similar: string }[]): number[][] {
  let data: GptCacheEquivalences;
  try {
    data = loadYamlValidated(file, validatorFor<GptCacheEquivalences>('gptcache-equivalences.schema.json'));
  } catch (err) {
    throw new SetupError((err as Error).message);
  }
  if (data.review.class_pairs_merged !== data.merges.length)
    throw new SetupError(`${file}: review.class_pairs_merged is ${data.review.class_pairs_merged} but ${data.merges.length} merges are listed`);
  return data.merges.map((m, k) => {
    for (const side of [m.a, m.b])
      for (const i of side.pairs) {
        const p = pairs[i];
        if (!p) throw new SetupError(`${file}: merge ${k + 1} names pair ${i}, but the data has ${pairs.length} pairs`);
        if (p.origin !== side.text && p.similar !== side.text)
          throw new SetupError(`${file}: merge ${k + 1} quotes a text that is neither the origin nor the similar of pair ${i}`);
      }
    return [...m.a.pairs, ...m.b.pairs];
  });
}
