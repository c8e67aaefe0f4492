export { startLearningLoop, type LearningLoopOptions } from './learning-loop.ts';
export { createPatternSlot, type PatternSlot } from './pattern-slot.ts';
