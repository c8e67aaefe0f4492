import { createPassProtocol } from './pass-protocol.ts';
import { SIGNAL_PASSES, SINGLE_PASSES } from '../jobs/passes.ts';
import type { RunProtocol } from './run-protocol.ts';

/** `--protocol single`: one pass, every turn on `--model`; no protocol metrics. */
export const singleProtocol: RunProtocol = createPassProtocol('single', SINGLE_PASSES);

/** `bench signal` (benchmark.md §4.2): the single protocol twice, forced cheap then forced strong. */
export const signalProtocol: RunProtocol = createPassProtocol('signal', SIGNAL_PASSES);
