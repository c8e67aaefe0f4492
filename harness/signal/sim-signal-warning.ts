import type { Workload } from '../workloads/workload.ts';

/**
 * The report warning for a run on a real provider that selected workloads whose `high` verdict was
 * measured only on the simulated provider (or never measured): their discrimination is a property of
 * the sim's scripted difficulty until `bench signal --write` re-measures them with a key. Null when
 * the run is simulated or every selected high workload was measured on a real provider.
 */
export function simSignalWarning(workloads: readonly Workload[], simulated: boolean): string | null {
  if (simulated) return null;
  const unproven = workloads.filter((w) => (w.spec.signal_strength ?? 'high') === 'high' && w.spec.signal?.simulated !== false);
  if (unproven.length === 0) return null;
  const names = unproven.map((w) => `${w.spec.name} (${w.spec.signal ? `measured on ${w.spec.signal.provider}` : 'never measured'})`);
  return (
    `signal_strength high was not measured on a real provider for ${names.join(', ')}: ` +
    'a sim-measured gap says nothing about these models; run `bench signal --workload NAME --provider <real> --write` to re-measure'
  );
}
