import { api, type BodyOf } from '@ksp/contracts';
import { call } from './client';

export const passwordPolicyKeys = {
  policy: ['password-policy'] as const,
};

export function fetchPasswordPolicy() {
  return call(api.passwordPolicy.get);
}

export function savePasswordPolicy(body: BodyOf<typeof api.passwordPolicy.update>) {
  return call(api.passwordPolicy.update, { body });
}
