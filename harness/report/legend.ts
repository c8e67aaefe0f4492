/** What each abbreviation, column and flag of the report means: one place, so every rendering explains it the same way. */
export const GLOSSARY: Readonly<Record<string, string>> = {
  llm: 'llm = LLM calls',
  tool: 'tool = tool calls the model asked for',
  actual: 'actual $ = what the run spent',
  baseline: 'baseline $ = the same tokens at the baseline model\'s prices',
  saved: 'price effect = baseline − actual on the same tokens re-priced at the baseline model\'s prices (not savings: only "vs measured strong arm" is)',
  quality: 'quality = mean gated score (± std over 2+ reps; solved ≥ 0.5 > unsolved)',
  noisy: 'NOISY = std > 0.15',
  solved: 'solved = hidden check passed (no check: score ≥ 0.5); check_error = the check could not run; not_reached = stopped before the check',
  check: 'check = hidden-check passes / reps that ran it',
  passk: 'pass@k / ^k = share of workloads where at least one / all of the k reps solved it',
  passes: 'passes: A = every turn forced to the cheap model; B = every turn forced to the strong model; C = routing live (slot 4 learns from A and B); C-oos = C routed by the other workloads\' outcomes only; D = a planner delegating to workers',
  slot4: 'slot-4 fire = routed turns where the K-NN had a recommendation (chose or deferred); inversion = routed turns where it changed the model the rest of the chain would have picked',
};

/** Splits text into lines of at most `width` characters, at spaces (a longer word stands alone). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The legend of the given glossary terms as one paragraph, wrapped to `width` (null: one line), indented. */
export function legendLines(terms: readonly string[], width: number | null, indent = '  '): string[] {
  const text = `Legend: ${terms.map((t) => GLOSSARY[t]).filter(Boolean).join('; ')}.`;
  return width === null ? [`${indent}${text}`] : wrapWords(text, Math.max(20, width - indent.length)).map((l) => `${indent}${l}`);
}
