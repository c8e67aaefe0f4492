/**
 * context-assembler.md §5.1: when tools + stable system estimate (chars / 4) below the minimum, the
 * stable system is padded, up toward the maximum and never past it.
 */
export const MIN_CACHEABLE_PREFIX_TOKENS = 4500;
/** The bound padding never passes: we want a cached prefix, not a maximal one. */
export const MAX_CACHEABLE_PREFIX_TOKENS = 5500;

/** The padding band in heuristic tokens. */
export interface PrefixTarget {
  min: number;
  max: number;
}

/** The spec's band (4,500 – 5,500 heuristic tokens). */
export const PREFIX_TARGET: PrefixTarget = Object.freeze({ min: MIN_CACHEABLE_PREFIX_TOKENS, max: MAX_CACHEABLE_PREFIX_TOKENS });

/**
 * Splits text into the units padding may stop between: paragraphs, with a heading joined to the
 * paragraph after it so a truncated block never ends on a bare heading.
 */
export function paddingUnits(text: string): string[] {
  const units: string[] = [];
  let heading: string | null = null;
  for (const raw of text.split(/\n[ \t]*\n/)) {
    const p = raw.trim();
    if (!p) continue;
    const isHeading = /^#{1,6} /.test(p) && !p.includes('\n');
    if (isHeading) {
      heading = heading ? `${heading}\n\n${p}` : p;
      continue;
    }
    units.push(heading ? `${heading}\n\n${p}` : p);
    heading = null;
  }
  if (heading) units.push(heading);
  return units;
}

/** What to pad with and how to measure: `compose` renders the stable system for a choice of sources. */
export interface PaddingInput<B> {
  /** Renders the stable system with these atomic blocks (in order) and these fill units. */
  compose(blocks: readonly B[], units: readonly string[]): string;
  /** Heuristic tokens of tools + this stable system. */
  measure(system: string): number;
  /** Whole blocks, highest priority first (skill bodies); one that does not fit is skipped. */
  blocks: readonly B[];
  /** Divisible fallback (the operating-context block), cut at the first unit that does not fit. */
  units: readonly string[];
  target: PrefixTarget;
}

/** The padded stable system, the blocks it took and how many fill units. */
export interface PaddingResult<B> {
  system: string;
  blocks: B[];
  unitCount: number;
  /** Heuristic tokens of tools + `system`. */
  tokens: number;
}

/**
 * §5.1 padding: a no-op when the natural prefix reaches `target.min`; otherwise whole blocks first,
 * then fill units, each kept only while the prefix stays within `target.max`. Pure and
 * deterministic, so the same inputs give a byte-identical prefix.
 */
export function padStablePrefix<B>(input: PaddingInput<B>): PaddingResult<B> {
  const { compose, measure, target } = input;
  let system = compose([], []);
  let tokens = measure(system);
  const blocks: B[] = [];
  const units: string[] = [];
  if (tokens >= target.min) return { system, blocks, unitCount: 0, tokens };
  for (const b of input.blocks) {
    const next = compose([...blocks, b], units);
    const n = measure(next);
    if (n > target.max) continue;
    blocks.push(b);
    system = next;
    tokens = n;
  }
  for (const u of input.units) {
    const next = compose(blocks, [...units, u]);
    const n = measure(next);
    if (n > target.max) break;
    units.push(u);
    system = next;
    tokens = n;
  }
  return { system, blocks, unitCount: units.length, tokens };
}
