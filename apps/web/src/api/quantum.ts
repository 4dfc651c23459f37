import { api, type BodyOf } from '@ksp/contracts';
import { call } from './client';

export const quantumKeys = {
  status: ['quantum', 'status'] as const,
};

export function fetchQuantumStatus() {
  return call(api.quantum.status);
}

/** The page shows the server's refusal itself (beside the form), hence `silent`. */
export function updateQuantum(body: BodyOf<typeof api.quantum.update>) {
  return call(api.quantum.update, { body }, { silent: true });
}

/** The page shows a failed test in its result area, hence `silent`. */
export function testQuantum() {
  return call(api.quantum.test, {}, { silent: true });
}
