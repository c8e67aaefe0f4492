// The format-independent shape of a report: report-sections.ts fills it, and the Markdown and HTML renderers
// (and the sections built in their own modules, such as the oracle's) read it, so none imports another's code.

/** One piece of a section: a table of formatted text, a bullet list, a paragraph or a shell command. */
export type ReportBlock =
  | { kind: 'table'; head: string[]; rows: string[][]; /** Columns to right-align (numbers). */ numeric: number[] }
  | { kind: 'list'; items: string[] }
  | { kind: 'text'; text: string }
  | { kind: 'command'; text: string };

/** Where each section belongs; the HTML rendering hangs its charts off these ids. */
export type SectionId = 'headline' | 'provenance' | 'workloads' | 'aggregate' | 'a3' | 'recording-errors' | 'assertions' | 'warnings' | 'recompute';

/** A titled part of the report. */
export interface ReportSection {
  id: SectionId;
  title: string;
  blocks: ReportBlock[];
}

/** The report's content independent of output format: Markdown and HTML both render this, so they never drift apart. */
export interface ReportDocument {
  title: string;
  banner: string | null;
  sections: ReportSection[];
}
