// The headline verdict is one paragraph of sentences (the claim, then notes such as "the router never used the
// strong model" and the comparison with random). Screens with room for one line show its first sentence, the
// verdict proper, and put the rest under it; every rendering splits it here, so the words never drift apart.

/**
 * The verdict's sentences, in order: a sentence ends at a full stop followed by a space and a capital letter or
 * a backquote (figures such as `$0.35.` or `0.5` never end one). Joined with single spaces they give the verdict back.
 */
export function verdictSentences(verdict: string): string[] {
  return verdict
    .trim()
    .split(/(?<=\.)\s+(?=[A-Z`])/)
    .filter((s) => s.length > 0);
}

/**
 * The verdict's first sentence split at its first colon: the scope (who was compared, on what units) and the
 * claim. `scope` is null when the sentence has no colon before its claim.
 */
export function verdictLead(verdict: string): { lead: string; scope: string | null; claim: string; details: string[] } {
  const [lead = '', ...details] = verdictSentences(verdict);
  const colon = lead.indexOf(': ');
  return colon < 0 ? { lead, scope: null, claim: lead, details } : { lead, scope: lead.slice(0, colon + 1), claim: lead.slice(colon + 2), details };
}
