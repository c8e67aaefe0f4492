import { describe, expect, it } from 'vitest';
import { protocolFor } from './protocols.ts';
import { a3ReportSection, sectionFor } from './report-section.ts';
import type { ReportSectionInput } from '../report/protocol-metrics.ts';

describe('sectionFor', () => {
  it("is each protocol's own report section, so a report rebuilt by analyze or view is the one the run wrote", () => {
    expect(protocolFor('a3').reportSection).toBe(a3ReportSection);
    expect(sectionFor('a3').reportSection).toBe(a3ReportSection);
    const input = {} as ReportSectionInput;
    for (const name of ['single', 'signal'] as const) {
      expect(protocolFor(name).reportSection(input)).toBeNull();
      expect(sectionFor(name).reportSection(input)).toBeNull();
    }
  });
});
