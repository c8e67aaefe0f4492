// TaskTypeDetector (semantic-cache-phase2.md §10): keyword patterns, confidence from how many matched.

export interface TaskDetection {
  task_type: string;
  /** In [0, 1]: 0 for the fallback, rising with the number of matching patterns. */
  confidence: number;
  /** The first matching phrase, or "general". */
  intent: string;
}

const PATTERNS: ReadonlyArray<readonly [string, RegExp]> = [
  ['summarization', /\b(summari[sz]e|summary|tl;?dr|recap|condense)\b/gi],
  ['coding', /\b(write code|implement|function|class|method|refactor|bug|compile|typescript|python|regex)\b/gi],
  ['reasoning', /\b(why|explain|reason|analy[sz]e|prove|compare|trade-?offs?)\b/gi],
  ['translation', /\b(translate|convert to|in (?:french|german|spanish|japanese|chinese))\b/gi],
  ['classification', /\b(classify|categori[sz]e|label|which category)\b/gi],
  ['legal', /\b(contract|clause|liability|gdpr|licen[sc]e terms|statute|lawsuit)\b/gi],
  ['faq', /\b(how do i|how to|what is|what are|help with|where can i)\b/gi],
];

/** Below this the detection falls back to `general` (§12.5). */
export const MIN_TASK_CONFIDENCE = 0.3;

export class TaskTypeDetector {
  detect(prompt: string): TaskDetection {
    const text = prompt.trim();
    if (!text) return { task_type: 'general', confidence: 0, intent: 'general' };
    let best: TaskDetection = { task_type: 'general', confidence: 0, intent: 'general' };
    let bestCount = 0;
    for (const [type, re] of PATTERNS) {
      const matches = text.match(re) ?? [];
      if (matches.length > bestCount) {
        bestCount = matches.length;
        // One match is a fair guess (0.5); each further match adds certainty, capped at 0.95.
        best = { task_type: type, confidence: Math.min(0.95, 0.35 + 0.15 * matches.length), intent: matches[0]!.toLowerCase() };
      }
    }
    return best.confidence < MIN_TASK_CONFIDENCE ? { task_type: 'general', confidence: best.confidence, intent: 'general' } : best;
  }
}
