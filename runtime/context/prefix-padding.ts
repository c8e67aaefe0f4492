import { estimateTokens } from '../sessions/estimate-tokens.ts';
import type { ToolSpec } from '../types/request.ts';

/**
 * context-assembler.md §5.1 pads the cacheable prefix (tools + stable system) into a band of heuristic
 * tokens (chars / 4). The spec's 4,500 was calibrated on a tokenizer that counts ~1.26x MORE tokens than
 * the heuristic; o200k counts ~15% FEWER on this prose, so 4,500 heuristic tokens land under Haiku 4.5's
 * 4,096-token floor. The minimum is therefore 5,000 (max unchanged); see docs/decisions.md.
 */
export const PREFIX_TARGET = { min: 5000, max: 5500 } as const;

/**
 * Appends padding sources (skill bodies first, then the operating-context block) paragraph by
 * paragraph until tools + stable system reach `target.min`, never passing `target.max`. Pure and
 * deterministic, so the stable prefix is byte-identical turn to turn.
 */
export function padStablePrefix(o: { base: string; tools: readonly ToolSpec[]; padding: readonly string[]; target: { min: number; max: number } }): string {
  const size = (system: string) => estimateTokens({ system, system_volatile: null, tools: [...o.tools], messages: [] });
  let stable = o.base;
  if (size(stable) >= o.target.min) return stable;
  for (const source of o.padding) {
    for (const paragraph of source.split(/\n{2,}/)) {
      const next = `${stable}\n\n${paragraph.trimEnd()}`;
      if (size(next) > o.target.max) return stable;
      stable = next;
      if (size(stable) >= o.target.min) return stable;
    }
  }
  return stable;
}
