import { describe, expect, it } from 'vitest';
import { gateMismatch, gateSignature } from './exact-token-gate.ts';

const gate = (a: string, b: string) => gateMismatch(gateSignature(a), gateSignature(b));

describe('exact-token gate', () => {
  it('passes true paraphrases that keep their answer-determining tokens', () => {
    expect(gate('Hugging Face Hub is a platform to host Git-based models.', 'Hugging Face Hub serves as a repository for Git-based models.')).toBeNull();
    expect(gate('How do I read a CSV with pandas.read_csv()?', 'What is the way to load a CSV using pandas.read_csv()?')).toBeNull();
    // An entity may move (sentence-initial in one, mid-sentence in the other).
    expect(gate('PyTorch has cutting-edge diffusers for images.', 'Diffusers for images are state of the art in PyTorch.')).toBeNull();
  });
  it('blocks a swapped number', () => {
    expect(gate('What is 15% of 80?', 'What is 15% of 90?')).toBe('numbers');
    expect(gate('How many days are in 3 weeks?', 'How many days are in 4 weeks?')).toBe('numbers');
  });
  it('blocks a swapped named entity or identifier', () => {
    expect(gate('What is the capital city of France?', 'What is the capital city of Germany?')).toBe('entities');
    expect(gate('What does read_csv return in pandas?', 'What does read_json return in pandas?')).toBe('identifiers');
    expect(gate('Explain HTTP status 404 in detail.', 'Explain HTTP status 403 in detail.')).toBe('numbers');
  });
  it('blocks a different quoted string', () => {
    expect(gate('Translate "good morning" into Spanish.', 'Translate "good night" into Spanish.')).toBe('quoted');
  });
  it('does not read apostrophes as quotes', () => {
    expect(gateSignature("the model's config and the dataset's card").quoted).toEqual([]);
  });
  it('blocks an added or dropped negation', () => {
    expect(gate('Which fruits are high in vitamin C?', 'Which fruits are not high in vitamin C?')).toBe('negation');
    expect(gate('Which Python versions support f-strings?', "Which Python versions don't support f-strings?")).toBe('negation');
  });
  it('blocks a reversed direction', () => {
    expect(gate('Convert 50 USD to EUR.', 'Convert 50 EUR to USD.')).toBe('direction');
    expect(gate('Is Rust faster than Go for servers?', 'Is Go faster than Rust for servers?')).toBe('direction');
    expect(gate('How long is the flight from London to Paris?', 'How long is the flight from Paris to London?')).toBe('direction');
  });
  it('blocks one swapped content word between otherwise identical questions (lower-case tools)', () => {
    expect(gate('How do I install numpy with pip?', 'How do I install numpy with conda?')).toBe('word_swap');
    expect(gate('What does the git command git rebase do?', 'What does the git command git merge do?')).toBe('word_swap');
    // A reworded paraphrase keeps passing; so does a swapped function word or an inflection.
    expect(gate('How do I install numpy with pip?', 'What is the way to install numpy using pip?')).toBeNull();
    expect(gate('How do I install numpy with pip?', 'How can I install numpy with pip?')).toBeNull();
    expect(gate('How do I merge two datasets?', 'How do I merge two dataset?')).toBeNull();
  });
  it('treats 1,000 and 1000 as the same number', () => {
    expect(gate('Is 1,000 bigger than 999 here?', 'Is 1000 bigger than 999 here?')).toBeNull();
  });
  it('handles empty text', () => {
    expect(gate('', '')).toBeNull();
  });
});
